import ConversationState
import Foundation

/// A knowledge source an answer cites, as the protocol writes it (`Source` in `Docs/HTTP-PROTOCOL.md`): in a
/// `Message`'s `sources`, a typed `source` event, or a data frame's `sources`.
struct WireSource: Codable, Sendable {
  var id: String?
  var documentId: String?
  var title: String?
  var internalUrl: String?
  var externalUrl: String?

  private enum CodingKeys: String, CodingKey {
    case id
    case documentId = "document_id"
    case title
    case internalUrl = "internal_url"
    case externalUrl = "external_url"
  }

  /// The store's source. A title that is missing or only spaces, or a link that is not an absolute
  /// `http(s)` URL, is `INVALID_EVENT`: a source is never passed on without its link text, nor with a link a
  /// host could open into something else (`javascript:`, `file:`).
  func source() throws(ChatError) -> KnowledgeSource {
    guard let title, !title.allSatisfy(\.isWhitespace) else {
      throw ChatError(.invalidEvent, "The server cited a source\(named) without a title.")
    }
    return KnowledgeSource(
      id: id, documentID: documentId, title: title, url: try link(externalUrl, "external_url"),
      internalURL: try link(internalUrl, "internal_url"))
  }

  private func link(_ text: String?, _ key: String) throws(ChatError) -> URL? {
    guard let text else { return nil }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      url.host?.isEmpty == false
    else {
      throw ChatError(
        .invalidEvent, "The server cited a source\(named) whose \(key) is not an http(s) link: \(text.prefix(120))")
    }
    return url
  }

  private var named: String { id.map { " (\"\($0.prefix(64))\")" } ?? "" }
}

extension ChatPolicy {
  /// The sources one message may cite, or one reply stream bring: with its text, the parts a reply may have
  /// (`maximumPartsPerReply` - 1).
  var maximumSourcesPerMessage: Int { max(0, maximumPartsPerReply - 1) }
}

extension [WireSource] {
  /// The store's sources, in order; more than `maximum` is `INVALID_EVENT`, as is any source `source()`
  /// refuses.
  func sources(maximum: Int) throws(ChatError) -> [KnowledgeSource] {
    guard count <= maximum else {
      throw ChatError(.invalidEvent, "The server sent a message citing \(count) sources; at most \(maximum) are read.")
    }
    var sources: [KnowledgeSource] = []
    sources.reserveCapacity(count)
    for wire in self { sources.append(try wire.source()) }
    return sources
  }
}

extension Message {
  /// Gives an answer the sources it cites, as its parts after its text: `text-0` with the text (when it has
  /// any), a part per tool call in `calls` (named by the call), then a `.source` part per source in order,
  /// named by its `id` or else `source-<n>` (a name taken gets `~2`); each source is in `sources` once.
  /// Replaces any parts the message had. Nothing changes for no sources.
  mutating func cite(_ cited: [KnowledgeSource], after calls: [ToolCallID] = []) {
    guard !cited.isEmpty else { return }
    var names = UniquePartIDs()
    var parts: [MessagePart] = []
    if !text.isEmpty { parts.append(MessagePart(id: names.next("text-0"), .text(text))) }
    for call in calls {
      names.reserve(call.rawValue)
      parts.append(MessagePart(id: PartID(rawValue: call.rawValue), .toolCall(call)))
    }
    for (index, source) in cited.enumerated() {
      parts.append(MessagePart(id: names.next(source.partKey(orElse: "source-\(index + 1)")), .source(source)))
      if !sources.contains(source) { sources.append(source) }
    }
    self.parts = parts
  }
}

extension KnowledgeSource {
  /// The name of this source's part: its ID when it has one, else `fallback`.
  func partKey(orElse fallback: String) -> String {
    guard let id, !id.isEmpty else { return fallback }
    return id
  }
}
