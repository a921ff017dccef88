import ChatHTTP
public import ConversationState
import Foundation

extension UIMessageChunk {
  /// Reads one chunk from its JSON text (the `data` of one Server-Sent Event; `[DONE]` is `.done`).
  ///
  /// Unknown fields are ignored and an unknown type is `.unknown`; text that is not a JSON object, a missing
  /// required field or a field of the wrong type is `INVALID_EVENT` (never coerced). `null` in an optional
  /// field reads as absent.
  ///
  /// ```swift
  /// let chunk = try UIMessageChunk(json: #"{"type":"text-delta","id":"t1","delta":"Hi"}"#)
  /// // chunk == .textDelta(id: "t1", delta: "Hi")
  /// ```
  public init(json: String) throws(ChatError) {
    if json == "[DONE]" {
      self = .done
      return
    }
    self = try UIMessageChunk(object: try ChunkFields.object(parsing: json, what: "A UI message stream chunk"))
  }

  /// Reads one chunk from its JSON object.
  public init(object: [String: JSONValue]) throws(ChatError) {
    let type = try ChunkFields(invalidEvent: object, type: "chunk").string("type")
    let fields = ChunkFields(invalidEvent: object, type: type)
    switch type {
    case "start":
      self = .start(
        messageID: try fields.optionalString("messageId"), metadata: fields.optionalValue("messageMetadata"))
    case "start-step": self = .startStep
    case "finish-step": self = .finishStep
    case "reset-step": self = .resetStep
    case "custom":
      self = .custom(kind: try fields.string("kind"), providerMetadata: fields.optionalValue("providerMetadata"))
    case "reasoning-file":
      self = .reasoningFile(url: try fields.string("url"), mediaType: try fields.string("mediaType"))
    case "text-start":
      self = .textStart(id: try fields.string("id"), providerMetadata: fields.optionalValue("providerMetadata"))
    case "text-delta": self = .textDelta(id: try fields.string("id"), delta: try fields.string("delta"))
    case "text-end":
      self = .textEnd(id: try fields.string("id"), providerMetadata: fields.optionalValue("providerMetadata"))
    case "reasoning-start":
      self = .reasoningStart(id: try fields.string("id"), providerMetadata: fields.optionalValue("providerMetadata"))
    case "reasoning-delta": self = .reasoningDelta(id: try fields.string("id"), delta: try fields.string("delta"))
    case "reasoning-end":
      self = .reasoningEnd(id: try fields.string("id"), providerMetadata: fields.optionalValue("providerMetadata"))
    case "tool-input-start": self = .toolInputStart(try fields.toolInput())
    case "tool-input-delta":
      self = .toolInputDelta(toolCallID: try fields.string("toolCallId"), delta: try fields.string("inputTextDelta"))
    case "tool-input-available":
      self = .toolInputAvailable(try fields.toolInput(), input: try fields.required("input"))
    case "tool-input-error":
      self = .toolInputError(
        try fields.toolInput(), input: fields.optionalValue("input") ?? .null, errorText: try fields.string("errorText")
      )
    case "tool-approval-request":
      self = .toolApprovalRequest(
        approvalID: try fields.string("approvalId"), toolCallID: try fields.string("toolCallId"),
        isAutomatic: try fields.optionalBool("isAutomatic") ?? false, signature: try fields.optionalString("signature"))
    case "tool-approval-response":
      self = .toolApprovalResponse(
        approvalID: try fields.string("approvalId"), approved: try fields.bool("approved"),
        reason: try fields.optionalString("reason"))
    case "tool-output-available":
      self = .toolOutputAvailable(
        toolCallID: try fields.string("toolCallId"), output: try fields.required("output"),
        preliminary: try fields.optionalBool("preliminary") ?? false,
        providerMetadata: fields.optionalValue("providerMetadata"))
    case "tool-output-error":
      self = .toolOutputError(
        toolCallID: try fields.string("toolCallId"), errorText: try fields.string("errorText"),
        providerMetadata: fields.optionalValue("providerMetadata"))
    case "tool-output-denied": self = .toolOutputDenied(toolCallID: try fields.string("toolCallId"))
    case "source-url":
      self = .sourceURL(
        sourceID: try fields.string("sourceId"), url: try fields.string("url"),
        title: try fields.optionalString("title"))
    case "source-document":
      self = .sourceDocument(
        sourceID: try fields.string("sourceId"), mediaType: try fields.string("mediaType"),
        title: try fields.string("title"), filename: try fields.optionalString("filename"))
    case "file": self = .file(url: try fields.string("url"), mediaType: try fields.string("mediaType"))
    case "message-metadata": self = .messageMetadata(try fields.required("messageMetadata"))
    case "finish":
      self = .finish(
        finishReason: try fields.optionalString("finishReason"), metadata: fields.optionalValue("messageMetadata"))
    case "abort": self = .abort(reason: try fields.optionalString("reason"))
    case "error": self = .error(errorText: try fields.string("errorText"))
    default:
      guard type.hasPrefix("data-"), type.count > 5 else {
        self = .unknown(type: type)
        return
      }
      self = .data(
        name: String(type.dropFirst(5)), id: try fields.optionalString("id"), data: try fields.required("data"),
        transient: try fields.optionalBool("transient") ?? false)
    }
  }
}

/// A chunk's fields; a broken rule is `INVALID_EVENT`.
typealias ChunkFields = JSONFields<ChatError>

extension JSONFields<ChatError> {
  func toolInput() throws(ChatError) -> UIMessageChunk.ToolInput {
    UIMessageChunk.ToolInput(
      toolCallID: try string("toolCallId"), toolName: try string("toolName"),
      providerExecuted: try optionalBool("providerExecuted") ?? false, dynamic: try optionalBool("dynamic") ?? false,
      title: try optionalString("title"), providerMetadata: optionalValue("providerMetadata"),
      toolMetadata: try toolMetadata())
  }

  /// `toolMetadata`, which the AI SDK's schema requires to be an object when present.
  private func toolMetadata() throws(ChatError) -> JSONValue? {
    guard let value = optionalValue("toolMetadata") else { return nil }
    guard case .object = value else { throw wrongType("toolMetadata", "an object") }
    return value
  }
}
