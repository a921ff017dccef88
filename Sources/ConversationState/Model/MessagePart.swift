public import Foundation

/// One piece of an assistant's answer, in the order the agent produced it: text, the model's reasoning, a
/// tool call, a cited source, a file, or host-defined data.
///
/// A message's `parts` are what agent protocols (AG-UI, the AI SDK UI message stream, OpenAI's Responses)
/// stream; `Message.text` stays the text parts joined, for a host that only shows text, and
/// `Message.toolCalls` and `Message.sources` keep every call and citation the parts name. A reply streamed
/// without parts (a plain text stream) has none: its `text` and `toolCalls` say everything.
///
/// ```swift
/// for part in message.parts {
///   switch part.content {
///   case .text(let text): paragraph(text)
///   case .reasoning(let reasoning): collapsedThoughts(reasoning.text)  // never `encryptedValue`
///   case .toolCall(let id): toolRow(message.toolCalls.first { $0.id == id })
///   case .source(let source): link(source.title, source.url)
///   case .file(let file): attachmentChip(file)
///   case .data(let data): customView(kind: data.kind, data.value)
///   }
/// }
/// ```
public struct MessagePart: Identifiable, Hashable, Sendable, Codable {
  /// What a part holds.
  public enum Content: Hashable, Sendable, Codable {
    /// Text of the answer.
    case text(String)
    /// The model's reasoning, shown apart from the answer (dimmed, collapsed) if at all.
    case reasoning(ReasoningPart)
    /// A tool call, by its ID in the message's `toolCalls`, which holds its name, input and outcome.
    case toolCall(ToolCallID)
    /// A source the answer cites. Indirect: a source is the largest payload (three strings, two links), and
    /// inline it made every part, text deltas' included, that much larger to copy.
    indirect case source(KnowledgeSource)
    /// A file the agent produced or refers to.
    case file(FilePart)
    /// Data of a kind the host defines (a product card, a chart); a later part with the same ID replaces it.
    case data(DataPart)
  }

  /// Unique within its message. A tool call's part has the call's ID.
  public var id: PartID
  /// What the part holds.
  public var content: Content

  /// A part as the agent produced it.
  public init(id: PartID, _ content: Content) {
    self.id = id
    self.content = content
  }

  /// The part's text when it is answer text, else nil.
  public var text: String? {
    if case .text(let text) = content { return text }
    return nil
  }
}

/// The model's reasoning for an answer.
public struct ReasoningPart: Hashable, Sendable, Codable {
  /// The reasoning as the model wrote it (or summarized it); may be empty when the provider only sends
  /// `encryptedValue`.
  public var text: String
  /// An opaque value the provider sends to be handed back on the next run (OpenAI's encrypted reasoning,
  /// Anthropic's signature). Kept and stored with the message; never shown and never interpreted here.
  public var encryptedValue: String?

  /// Reasoning as the model produced it.
  public init(text: String, encryptedValue: String? = nil) {
    self.text = text
    self.encryptedValue = encryptedValue
  }
}

/// A file in an answer: an image the agent made, a document it refers to.
public struct FilePart: Hashable, Sendable, Codable {
  /// Where the file is (an `https:` URL or a `data:` URL, as the agent sent it). Not fetched here.
  public var url: URL
  /// The file's IANA media type, such as `image/png`.
  public var mediaType: String
  /// The file's name, when the agent gave one.
  public var name: String?

  /// A file part as the agent sent it.
  public init(url: URL, mediaType: String, name: String? = nil) {
    self.url = url
    self.mediaType = mediaType
    self.name = name
  }
}

/// Host-defined data in an answer (the AI SDK's `data-*` parts).
public struct DataPart: Hashable, Sendable, Codable {
  /// The kind the host switches on, such as `weather` for a `data-weather` part.
  public var kind: String
  /// The data as the agent sent it.
  public var value: JSONValue

  /// Data of `kind`.
  public init(kind: String, value: JSONValue) {
    self.kind = kind
    self.value = value
  }
}

extension Message {
  /// Makes a message's parts sound and fills what they imply: a repeated part ID keeps its first part, a
  /// tool-call part naming a call the message lacks is dropped; with no `text`, the text parts joined in
  /// order; each source part's source in `sources`, once. Every message the reducer commits goes through
  /// it (a server's as much as a finished reply); an adapter that builds a message from parts may call it.
  public mutating func completeFromParts() {
    guard !parts.isEmpty else { return }
    var seen = Set<PartID>()
    let callIDs = Set(toolCalls.map(\.id))
    let sound = parts.filter { part in
      if case .toolCall(let callID) = part.content, !callIDs.contains(callID) { return false }
      return seen.insert(part.id).inserted
    }
    if sound.count != parts.count { parts = sound }
    if text.isEmpty { text = sound.lazy.compactMap(\.text).joined() }
    for part in sound {
      if case .source(let source) = part.content, !sources.contains(source) { sources.append(source) }
    }
  }
}
