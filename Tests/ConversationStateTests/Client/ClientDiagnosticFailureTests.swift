import ConversationState
import Testing

@Suite("A diagnostic's failure: a closed kind and an HTTP status, nothing of the error's text")
struct ClientDiagnosticFailureTests {
  @Test(
    "each error is classified by the codes and statuses this client knows",
    arguments: [
      (ChatError(.network, "reset"), ClientDiagnostic.Failure(kind: .network)),
      (ChatError(.incompleteStream, "cut"), .init(kind: .network)),
      (ChatError(.timeout, "slow"), .init(kind: .timeout)),
      (ChatError(.invalidResponse, "portal", status: 408), .init(kind: .timeout, httpStatus: 408)),
      (ChatError(.network, "denied", status: 401), .init(kind: .unauthorized, httpStatus: 401)),
      (ChatError(.invalidIdentity, "who?"), .init(kind: .unauthorized)),
      (ChatError(.providerError, "forbidden", status: 403), .init(kind: .unauthorized, httpStatus: 403)),
      (ChatError(.rateLimited, "slow down"), .init(kind: .rateLimited)),
      (ChatError(.network, "busy", status: 429), .init(kind: .rateLimited, httpStatus: 429)),
      (ChatError(.providerError, "model down"), .init(kind: .server)),
      (ChatError(.network, "bad gateway", status: 502), .init(kind: .network, httpStatus: 502)),
      (ChatError(.conversationNotFound, "gone", status: 503), .init(kind: .server, httpStatus: 503)),
      (ChatError(.syncStalled, "more, but nothing newer"), .init(kind: .invalidResponse)),
      (ChatError(.responseTooLarge, "huge"), .init(kind: .invalidResponse)),
      (ChatError(.storageFailed, "disk full"), .init(kind: .storage)),
      (ChatError(.conversationNotOngoing, "ended", status: 409), .init(kind: .other, httpStatus: 409)),
    ])
  func classified(_ error: ChatError, _ expected: ClientDiagnostic.Failure) {
    #expect(ClientDiagnostic.Failure(error) == expected)
  }

  @Test("a code a server made up, with a user's words in it, is only `other`: its text goes nowhere")
  func unknownCode() {
    let error = ChatError(ChatError.Code(rawValue: "ORDER_4411_FOR_ALICE_SMITH"), "Alice Smith's order 4411")
    let failure = ClientDiagnostic.Failure(error)
    #expect(failure == ClientDiagnostic.Failure(kind: .other))
    #expect(!String(describing: failure).contains("ALICE"))
  }

  @Test(
    "a status HTTP cannot carry is left out (a server's JSON can say anything)",
    arguments: [-1, 0, 99, 600, 4_411_000, Int.max])
  func statusOutOfRange(_ status: Int) {
    #expect(ClientDiagnostic.Failure(ChatError(.network, "odd", status: status)).httpStatus == nil)
  }

  @Test("no error named is `other`, with no status")
  func none() {
    #expect(ClientDiagnostic.Failure(nil) == ClientDiagnostic.Failure(kind: .other))
  }
}
