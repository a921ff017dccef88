import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The repository's misbehaving server (`MisbehavingServer/misbehaving_server.py`, Python 3 standard library
/// only), started on 127.0.0.1 for one test: each `case` is a way real servers, proxies and captive portals
/// go wrong, chosen by the base URL's path. It logs every request (and every connection to its second port,
/// the "other origin"), so a test can count requests and see what went where.
final class MisbehavingServer: Sendable {
  private let process: LocalServerProcess

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("MisbehavingServer/misbehaving_server.py")

  /// Starts a server whose every request ends within `maximumCaseSeconds` (scaled like the timeouts).
  /// - Parameter floodMiBPerSecond: the most the server sends a second (0: as fast as loopback goes).
  static func start(
    maximumCaseSeconds: Double = 20, dripIntervalSeconds: Double = 0.5, floodMiBPerSecond: Double = 0
  ) async throws -> MisbehavingServer {
    MisbehavingServer(
      process: try await LocalServerProcess.start([
        "python3", script.path, "--port", "0", "--max-case-s", "\(maximumCaseSeconds * sanitizerSlowdown)",
        "--drip-interval-s", "\(dripIntervalSeconds)", "--flood-mib-per-s", "\(floodMiBPerSecond)",
      ]))
  }

  private init(process: LocalServerProcess) { self.process = process }

  var port: Int { process.port }

  /// The base URL that makes the server misbehave as `name` says.
  func baseURL(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/case/\(name)/v1")! }

  /// A backend on case `name`, with the token `secret` and `policy`'s limits.
  func backend(_ name: String, policy: ChatPolicy = MisbehavingServer.policy) throws -> HTTPChatBackend {
    try HTTPChatBackend(baseURL: baseURL(name), policy: policy) { "secret" }
  }

  /// Short timeouts and backoffs, so a misbehaviour shows within seconds (six times longer under
  /// ThreadSanitizer, which runs everything that much slower); the size limits as shipped. 10 s, not less:
  /// with the whole suite beside it (and `.ci/run`'s 200 kills), a 3 s answer timed out before its content
  /// could be checked.
  static let policy: ChatPolicy = {
    var policy = ChatPolicy()
    policy.requestTimeout = 10 * sanitizerSlowdown
    policy.idleTimeout = 10 * sanitizerSlowdown
    policy.reconnectBackoff = Backoff(base: 0.5, cap: 2)
    policy.syncBackoff = Backoff(base: 0.5, cap: 2)
    return policy
  }()

  /// For the cases whose right outcome is `TIMEOUT` (drips, stalls): 5 s timeouts, not scaled for the
  /// sanitizer, so the timeout comes well within a test's time limit however slow the run.
  static let timingOutPolicy: ChatPolicy = {
    var policy = MisbehavingServer.policy
    policy.requestTimeout = 5
    policy.idleTimeout = 5
    return policy
  }()

  // MARK: Control API

  struct LoggedRequest: Decodable {
    var method: String
    var path: String
    var kind: String?
    var authorization: String?
    var outcome: String?
  }

  struct OtherOriginConnection: Decodable {
    var requestLine: String?
    var authorization: String?

    enum CodingKeys: String, CodingKey {
      case requestLine = "request_line"
      case authorization
    }
  }

  struct Log: Decodable {
    var requests: [LoggedRequest]
    var otherOrigin: [OtherOriginConnection]

    enum CodingKeys: String, CodingKey {
      case requests
      case otherOrigin = "other_origin"
    }

    /// Requests of one kind (`send`, `events`, `history`, `catchup`, …).
    func count(_ kind: String) -> Int { requests.filter { $0.kind == kind }.count }
  }

  /// Every request the server has seen, and every connection to the other origin.
  func log() async throws -> Log {
    try JSONDecoder().decode(Log.self, from: try await control("log"))
  }

  /// The other origin's port (`GET /control/info`).
  func otherPort() async throws -> Int {
    let info = try JSONSerialization.jsonObject(with: try await control("info")) as? [String: Any]
    guard let port = info?["other_port"] as? Int else { throw ServerError(description: "no other_port") }
    return port
  }

  private func control(_ path: String) async throws -> Data {
    let url = URL(string: "http://127.0.0.1:\(port)/control/\(path)")!
    let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url))
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
      throw ServerError(description: "control \(path) failed: \(String(decoding: data, as: UTF8.self))")
    }
    return data
  }
}

/// This process's resident memory, from `/proc/self/statm`: what a test reads before and after a case to
/// bound what the case made the client hold.
enum ResidentMemory {
  static func bytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// Waits until resident memory holds still (four samples 100 ms apart within 1 MiB of each other), at most
  /// `seconds`: what the transport still delivers and frees for a case that ended is not the next case's.
  static func settle(within seconds: Double = 10) async {
    var samples = [bytes()]
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(100))
      samples = Array((samples + [bytes()]).suffix(4))
      if samples.count == 4, let low = samples.min(), let high = samples.max(), high - low < 1_048_576 { return }
    }
  }
}

#if CONVERSATION_STORE_TSAN
  /// How much slower everything runs in the ThreadSanitizer build (`.ci/run` compiles it with
  /// `-DCONVERSATION_STORE_TSAN`).
  let sanitizerSlowdown = 6.0
  let isThreadSanitizerBuild = true
#else
  let sanitizerSlowdown = 1.0
  let isThreadSanitizerBuild = false
#endif
