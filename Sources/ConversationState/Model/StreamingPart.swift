/// A part of the reply being streamed: text and reasoning grow by deltas until they end; the other kinds
/// arrive whole. It becomes a `MessagePart` when the reply is committed.
public struct StreamingPart: Identifiable, Equatable, Sendable, Codable {
  /// What the part is.
  public enum Kind: Hashable, Sendable, Codable {
    /// Answer text, streamed.
    case text
    /// The model's reasoning, streamed.
    case reasoning
    /// A tool call, by its ID in the reply's `toolCalls`.
    case toolCall(ToolCallID)
    /// A cited source. Indirect: it is the largest payload, and inline it made every streaming part, text
    /// deltas' included, larger to copy (`frame.parts` measured 15% slower).
    indirect case source(KnowledgeSource)
    /// A file.
    case file(FilePart)
    /// Host-defined data.
    case data(DataPart)
  }

  /// Unique within the reply.
  public var id: PartID
  /// What the part is.
  public var kind: Kind
  /// The text so far: of a text or reasoning part, or the raw arguments of a tool call whose input streams
  /// (for display; empty for the other kinds). Each delta appends in O(delta). Not paced:
  /// `ChatPolicy.replyPresentation` applies to the reply's `text` (`presentedText`) only.
  public var text: StreamedText
  /// For reasoning: the provider's opaque value to hand back on the next run, once it sent one. Never shown.
  public var encryptedValue: String?
  /// Whether deltas may still arrive: true from a text or reasoning part's start to its end; false for the
  /// kinds that arrive whole. A committed message has no open part.
  public var isOpen: Bool

  /// A part as it starts.
  public init(
    id: PartID, kind: Kind, text: StreamedText = StreamedText(), encryptedValue: String? = nil, isOpen: Bool
  ) {
    self.id = id
    self.kind = kind
    self.text = text
    self.encryptedValue = encryptedValue
    self.isOpen = isOpen
  }

  /// The part as a committed message holds it.
  public var committed: MessagePart {
    switch kind {
    case .text: return MessagePart(id: id, .text(text.string))
    case .reasoning:
      return MessagePart(id: id, .reasoning(ReasoningPart(text: text.string, encryptedValue: encryptedValue)))
    case .toolCall(let call): return MessagePart(id: id, .toolCall(call))
    case .source(let source): return MessagePart(id: id, .source(source))
    case .file(let file): return MessagePart(id: id, .file(file))
    case .data(let data): return MessagePart(id: id, .data(data))
    }
  }

  /// A committed part as it streams again (a reply restored from disk resumes with what it had).
  public init(_ part: MessagePart, isOpen: Bool = false) {
    switch part.content {
    case .text(let text): self.init(id: part.id, kind: .text, text: StreamedText(text), isOpen: isOpen)
    case .reasoning(let reasoning):
      self.init(
        id: part.id, kind: .reasoning, text: StreamedText(reasoning.text), encryptedValue: reasoning.encryptedValue,
        isOpen: isOpen)
    case .toolCall(let call): self.init(id: part.id, kind: .toolCall(call), isOpen: false)
    case .source(let source): self.init(id: part.id, kind: .source(source), isOpen: false)
    case .file(let file): self.init(id: part.id, kind: .file(file), isOpen: false)
    case .data(let data): self.init(id: part.id, kind: .data(data), isOpen: false)
    }
  }
}

/// The kinds of part that stream by deltas.
public enum StreamedPartKind: String, Hashable, Sendable, Codable {
  /// Answer text.
  case text
  /// The model's reasoning.
  case reasoning
}
