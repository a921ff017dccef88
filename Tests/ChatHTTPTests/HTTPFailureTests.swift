import ConversationState
import ConversationStore
import Foundation
import Testing

@testable import ChatHTTP

@Suite("HTTP failures as typed errors")
struct HTTPFailureTests {
  static let now = Date(timeIntervalSince1970: 1_764_558_000)

  @Test(
    "each status has its default code, never retried after an authorization failure",
    arguments: [
      (401, "UNAUTHORIZED", false), (403, "UNAUTHORIZED", false), (404, "CONVERSATION_NOT_FOUND", false),
      (409, "CONVERSATION_CHANGED", false), (429, "RATE_LIMITED", true), (500, "SERVER_ERROR", true),
      (503, "SERVER_ERROR", true), (400, "HTTP_400", false),
    ])
  func statuses(status: Int, code: String, retryable: Bool) {
    let error = HTTPFailure.error(
      status: status, body: Data("<html>oops</html>".utf8), retryAfter: nil, now: Self.now, policy: ChatPolicy())

    #expect(error.code.rawValue == code)
    #expect(error.status == status)
    #expect(error.retryable == retryable)
  }

  @Test("the body's code wins over the status's, and the status is kept")
  func bodyCodeWins() {
    let body = Data(#"{"error": {"code": "INVALID_IDENTITY", "message": "Who are you?"}}"#.utf8)

    let error = HTTPFailure.error(status: 403, body: body, retryAfter: nil, now: Self.now, policy: ChatPolicy())

    #expect(error.code == .invalidIdentity && error.message == "Who are you?" && error.status == 403)
    #expect(error.isAuthorizationFailure)
  }

  @Test(
    "Retry-After in seconds or as an HTTP date becomes retryAfter, clamped into 0…maximumRetryAfter",
    arguments: [
      ("2", 2.0), (" 120 ", 120), ("Mon, 01 Dec 2025 03:00:10 GMT", 10), ("soon", nil), ("-3", 0), ("NaN", nil),
      ("1e19", 600), ("99999999999999999999", 600), ("1e308", 600), ("1e400", 600),
      ("Fri, 31 Dec 9999 23:59:59 GMT", 600), ("Mon, 01 Dec 2025 02:00:00 GMT", 0),
    ] as [(String, Double?)])
  func retryAfter(header: String, seconds: Double?) {
    let now = Date(timeIntervalSince1970: 1_764_558_000)  // 2025-12-01T03:00:00Z

    let error = HTTPFailure.error(status: 429, body: Data(), retryAfter: header, now: now, policy: ChatPolicy())

    #expect(error.retryAfter == seconds)
    #expect(error.code == .rateLimited)
  }

  @Test("only HTTPS, or plain HTTP to this machine, is allowed")
  func allowedURLs() {
    for allowed in [
      "https://chat.example.com/v1", "http://127.0.0.1:8080/v1", "http://localhost/v1", "http://[::1]:9/v1",
    ] {
      #expect(HTTPChatBackend.isAllowed(URL(string: allowed)!), "\(allowed)")
    }
    for refused in ["http://chat.example.com/v1", "http://10.0.0.2/v1", "ftp://127.0.0.1/v1", "ws://localhost/v1"] {
      #expect(!HTTPChatBackend.isAllowed(URL(string: refused)!), "\(refused)")
    }
  }

  @Test("a backend on a plain-HTTP remote URL fails every call with INSECURE_URL and sends nothing")
  func insecureURL() async throws {
    let asked = TokenCount()
    let backend = try HTTPChatBackend(baseURL: URL(string: "http://chat.example.com/v1")!) {
      asked.increment()
      return "secret"
    }

    await #expect(throws: ChatError.self) { _ = try await backend.conversations(after: nil, limit: 10) }
    do {
      for try await _ in backend.send(SendPayload(conversationID: nil, clientID: "c", text: "hi", attachments: [])) {}
      Issue.record("the send went out")
    } catch let error as ChatError {
      #expect(error.code == .insecureURL)
      #expect(!error.retryable)
    } catch {
      Issue.record("\(error)")
    }
    #expect(asked.value == 0, "not even a token was asked for")
  }
}

/// Counts calls from any thread.
final class TokenCount: Sendable {
  private let count = StateLock(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
