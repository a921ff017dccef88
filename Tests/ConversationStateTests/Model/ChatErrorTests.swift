import ConversationState
import Foundation
import Testing

@Suite("ChatError")
struct ChatErrorTests {
  static let table: [(ChatError.Code, Int?, Bool)] = [
    (.rateLimited, 429, true), (.providerError, nil, true),
    (.incompleteStream, nil, true), (.network, nil, true), (.timeout, nil, true),
    (.agentNotFound, 404, false), (.invalidIdentity, 401, false), (.conversationNotFound, 404, false),
    (.conversationNotOngoing, 409, false), (.conversationChanged, 409, false), (.creditLimitReached, 402, false),
    (.toolResultTooLarge, nil, false), (.toolLoopLimit, nil, false), (.emptyMessage, nil, false),
    (.tooManyAttachments, nil, false), (.attachmentTooLarge, nil, false), (.invalidPageSize, nil, false),
    (.cancelled, nil, false),
    // The codes' owners say: no agent, no feature and an insecure URL do not get better by retrying.
    (.agentUnavailable, 503, false), (.unsupported, 501, false), (.insecureURL, nil, false),
    (.messageTooLong, nil, false), (.eventForOtherConversation, nil, false), (.chatUnavailable, 503, false),
    // Any 401 or 403 is an authorization failure, whatever code came with it.
    (.network, 401, false), (.timeout, 403, false), (.rateLimited, 401, false),
    ("SOMETHING_NEW", 500, true), ("SOMETHING_NEW", 502, true), ("SOMETHING_NEW", 408, true),
    ("SOMETHING_NEW", 429, true), ("SOMETHING_NEW", 400, false), ("SOMETHING_NEW", 401, false),
    ("SOMETHING_NEW", 403, false), ("SOMETHING_NEW", nil, true),
  ]

  @Test("one table classifies which failures are worth retrying", arguments: table)
  func retryable(_ code: ChatError.Code, _ status: Int?, _ expected: Bool) {
    #expect(ChatError.isRetryable(code: code, status: status) == expected)
    #expect(ChatError(code, "x", status: status).retryable == expected)
  }

  @Test("authorization failures are recognized by code or status")
  func authorization() {
    #expect(ChatError(.invalidIdentity, "x").isAuthorizationFailure)
    #expect(ChatError("ANY", "x", status: 403).isAuthorizationFailure)
    #expect(!ChatError(.rateLimited, "x", status: 429).isAuthorizationFailure)
    #expect(ChatError(.network, "x", status: 401).isAuthorizationFailure)
    #expect(!ChatError(.network, "x", status: 401).retryable)
  }

  @Test("a description names the code, the status and the message")
  func description() {
    #expect(ChatError(.rateLimited, "Slow down", status: 429).description == "RATE_LIMITED (HTTP 429): Slow down")
  }

  @Test("an error is a value: a changed copy leaves the original, and equal errors hash alike")
  func valueSemantics() throws {
    let original = ChatError(.rateLimited, "Slow down", status: 429, retryAfter: 3)
    var copy = original
    copy.retryable = false
    copy.message = "Stop"
    #expect(original.retryable && original.message == "Slow down")
    #expect(copy != original)
    let twin = ChatError(.rateLimited, "Slow down", status: 429, retryAfter: 3)
    #expect(twin == original && twin.hashValue == original.hashValue)
    #expect(Set([original, twin, copy]).count == 2)
  }

  @Test("an error encodes every field and decodes back equal, with the server's retryable kept")
  func codableRoundTrip() throws {
    var error = ChatError(.network, "Dropped", status: nil, retryAfter: 1.5)
    error.retryable = false
    let data = try JSONEncoder().encode(error)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["code"] as? String == "NETWORK" && object["retryable"] as? Bool == false)
    #expect(object["retryAfter"] as? Double == 1.5 && object["status"] == nil)
    #expect(try JSONDecoder().decode(ChatError.self, from: data) == error)
  }
}
