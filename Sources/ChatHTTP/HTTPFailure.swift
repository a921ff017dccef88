import ConversationState
import Foundation

/// How a failed HTTP response becomes the store's typed error (see "Errors" in `Docs/HTTP-PROTOCOL.md`).
enum HTTPFailure {
  /// The error for a non-2xx `status`: the body's code when it has one, else the status's default; the
  /// status is always kept, and a `Retry-After` (seconds, or an HTTP date) becomes `retryAfter`, clamped by
  /// `policy.serverDelay` (so `1e19`, a negative number or the year 9999 become a wait a timer can take).
  static func error(
    status: Int, body: Data, retryAfter: String?, now: Date, policy: ChatPolicy, bodyCodeWins: Bool = true
  ) -> ChatError {
    var wire = (try? WireJSON.decoder().decode(WireErrorBody.self, from: body).error) ?? WireError()
    if !bodyCodeWins { wire.code = nil }
    let wait = retryAfter.flatMap { seconds($0, now: now) }.flatMap(policy.serverDelay)
    return wire.chatError(
      defaultCode: defaultCode(status), defaultMessage: "The server answered HTTP \(status).", status: status,
      retryAfter: wait)
  }

  static func defaultCode(_ status: Int) -> ChatError.Code {
    switch status {
    case 401, 403: return .unauthorized
    case 404: return .conversationNotFound
    case 409: return .conversationChanged
    case 429: return .rateLimited
    case 500...599: return "SERVER_ERROR"
    default: return "HTTP_\(status)"
    }
  }

  /// `Retry-After` as delay-seconds or as an HTTP date, in seconds from `now` (not yet clamped); nil when
  /// unreadable (`NaN`, `soon`).
  static func seconds(_ header: String, now: Date) -> Double? {
    let trimmed = header.trimmingCharacters(in: .whitespaces)
    if let seconds = Double(trimmed) { return seconds.isNaN ? nil : seconds }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: trimmed) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }

  /// A transport failure (no HTTP answer) as the store's error: timeouts are `TIMEOUT`, the rest `NETWORK`.
  static func transport(_ error: any Error) -> ChatError {
    if let error = error as? ChatError { return error }
    if let error = error as? URLError {
      if error.code == .timedOut { return ChatError(.timeout, "The server did not answer in time.") }
      return ChatError(.network, error.localizedDescription)
    }
    return ChatError(.network, "\(error)")
  }
}
