import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The repository's reference server (`ReferenceServer/reference_server.py`, Python standard library only),
/// started on 127.0.0.1 on a free port for one test and stopped after it. It also stops by itself when this
/// process dies: it exits when its stdin closes.
final class ReferenceServer: Sendable {
  private let process: LocalServerProcess

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("ReferenceServer/reference_server.py")

  /// Starts a server; `arguments` are its command-line options (`--style frames`, `--delay-ms 5`).
  static func start(_ arguments: [String] = []) async throws -> ReferenceServer {
    ReferenceServer(
      process: try await LocalServerProcess.start(
        ["python3", script.path, "--port", "0", "--delay-ms", "2"] + arguments))
  }

  private init(process: LocalServerProcess) { self.process = process }

  var port: Int { process.port }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }

  /// A backend on this server with a fixed or changing token.
  func backend(
    idleTimeout: Double = 10, token: @escaping HTTPChatBackend.TokenProvider = { "secret" }
  ) throws -> HTTPChatBackend {
    try HTTPChatBackend(baseURL: baseURL, requestTimeout: 10, idleTimeout: idleTimeout, token: token)
  }

  // MARK: Control API

  /// Sets faults (`/control/faults`): `["drop_reply_after_frames": 3]` and the others in its README.
  func faults(_ settings: [String: Any]) async throws {
    _ = try await control("faults", settings)
  }

  /// Creates a conversation with `messages` alternating messages; returns its ID.
  func conversation(title: String = "Order 1042", messages: Int = 0) async throws -> ConversationID {
    let answer = try await control("conversations", ["title": title, "messages": messages])
    guard let id = answer["conversation_id"] as? String else { throw ServerError(description: "no conversation") }
    return ConversationID(id)
  }

  /// Creates an agent message in `conversation`, broadcast on the realtime stream.
  func agentMessage(_ text: String, in conversation: ConversationID) async throws {
    _ = try await control("agent_message", ["conversation_id": conversation.rawValue, "text": text])
  }

  /// Everything the server holds (`GET /control/state`).
  func state() async throws -> [String: Any] {
    try await control("state", nil)
  }

  /// The messages the server holds in `conversation`.
  func messages(in conversation: ConversationID) async throws -> [[String: Any]] {
    let conversations = try await state()["conversations"] as? [String: Any]
    let entry = conversations?[conversation.rawValue] as? [String: Any]
    return entry?["messages"] as? [[String: Any]] ?? []
  }

  /// Any control call (see the server's README); nil body: a GET.
  @discardableResult
  func control(_ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/control/\(path)")!)
    if let body {
      request.httpMethod = "POST"
      request.httpBody = try JSONSerialization.data(withJSONObject: body)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode ?? 0 < 300 else {
      throw ServerError(description: "control \(path) failed: \(String(decoding: data, as: UTF8.self))")
    }
    if data.isEmpty { return [:] }
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }
}

struct ServerError: Error, CustomStringConvertible {
  let description: String
}
