public import ConversationState

/// One chunk of the AI SDK's UI message stream (v1: `x-vercel-ai-ui-message-stream: v1`), the `data` of one
/// Server-Sent Event, as `useChat` reads it. Fields are the protocol's (`uiMessageChunkSchema`, AI SDK 5
/// and 6); provider metadata is kept opaque.
public enum UIMessageChunk: Hashable, Sendable {
  /// The reply begins; `messageID` names the assistant message (a continuation names the one it continues).
  case start(messageID: String?, metadata: JSONValue?)
  /// A step (one model call) begins or ends; the end closes the step's open text and reasoning.
  case startStep
  case finishStep
  /// The step streaming now is thrown away and streamed again (AI SDK 7: a retried model call): its parts
  /// and partial tool calls leave the message.
  case resetStep
  /// Provider-specific content the protocol does not interpret (AI SDK 7), named `kind`
  /// ("<namespace>.<name>"); kept in the message and shown as a data part of that kind.
  case custom(kind: String, providerMetadata: JSONValue?)
  /// A file the model produced while reasoning (AI SDK 7).
  case reasoningFile(url: String, mediaType: String)
  case textStart(id: String, providerMetadata: JSONValue?)
  case textDelta(id: String, delta: String)
  case textEnd(id: String, providerMetadata: JSONValue?)
  case reasoningStart(id: String, providerMetadata: JSONValue?)
  case reasoningDelta(id: String, delta: String)
  case reasoningEnd(id: String, providerMetadata: JSONValue?)
  /// A tool call whose input streams as JSON text (`toolInputDelta`) until `toolInputAvailable`.
  case toolInputStart(ToolInput)
  case toolInputDelta(toolCallID: String, delta: String)
  /// A tool call's complete input.
  case toolInputAvailable(ToolInput, input: JSONValue)
  /// A tool call whose input the server could not use; the call fails with `errorText`.
  case toolInputError(ToolInput, input: JSONValue, errorText: String)
  /// The server asks the user to approve the call (AI SDK 6). In AI SDK 7 an `isAutomatic` one was decided
  /// by the server's own policy (its `toolApprovalResponse` follows at once), and `signature` binds the
  /// request to its call for a server that checks the answer (it goes back with the user's answer).
  case toolApprovalRequest(approvalID: String, toolCallID: String, isAutomatic: Bool = false, signature: String? = nil)
  /// The server's own answer to an approval request (AI SDK 7: an automatic approval or denial).
  case toolApprovalResponse(approvalID: String, approved: Bool, reason: String?)
  /// A tool's result; a `preliminary` one is replaced by the next. `providerMetadata` is the provider's
  /// about the result (the part's `resultProviderMetadata`, sent back with it).
  case toolOutputAvailable(toolCallID: String, output: JSONValue, preliminary: Bool, providerMetadata: JSONValue? = nil)
  case toolOutputError(toolCallID: String, errorText: String, providerMetadata: JSONValue? = nil)
  /// The user denied the call (AI SDK 6).
  case toolOutputDenied(toolCallID: String)
  case sourceURL(sourceID: String, url: String, title: String?)
  case sourceDocument(sourceID: String, mediaType: String, title: String, filename: String?)
  case file(url: String, mediaType: String)
  /// Host-defined data (`data-<name>`): a non-transient one is a part of the message (the same name and ID
  /// replace it); a transient one is only an event.
  case data(name: String, id: String?, data: JSONValue, transient: Bool)
  /// Metadata of the message, merged into what it had.
  case messageMetadata(JSONValue)
  /// The reply is complete.
  case finish(finishReason: String?, metadata: JSONValue?)
  /// The server stopped the reply (the user's stop, a server-side abort).
  case abort(reason: String?)
  /// The reply failed with the server's error text.
  case error(errorText: String)
  /// `[DONE]`: nothing follows.
  case done
  /// A chunk of a type this client does not know (of a newer protocol): skipped, and reported.
  case unknown(type: String)

  /// A tool call as its chunks name it.
  public struct ToolInput: Hashable, Sendable {
    public var toolCallID: String
    public var toolName: String
    /// The server runs the tool (a provider tool) even when the app has one of that name.
    public var providerExecuted: Bool
    /// A tool the server's agent did not declare statically (`dynamic-tool` parts).
    public var dynamic: Bool
    public var title: String?
    /// The provider's about the call (AI SDK 7 keeps it as the part's `callProviderMetadata`; a provider
    /// may need it back with the call, such as a model's signature over its own call).
    public var providerMetadata: JSONValue?
    /// The tool's own metadata as the server's tool definition declares it (AI SDK 7 `toolMetadata`, a
    /// JSON object), kept on the call's part.
    public var toolMetadata: JSONValue?

    public init(
      toolCallID: String, toolName: String, providerExecuted: Bool = false, dynamic: Bool = false,
      title: String? = nil, providerMetadata: JSONValue? = nil, toolMetadata: JSONValue? = nil
    ) {
      self.toolCallID = toolCallID
      self.toolName = toolName
      self.providerExecuted = providerExecuted
      self.dynamic = dynamic
      self.title = title
      self.providerMetadata = providerMetadata
      self.toolMetadata = toolMetadata
    }
  }
}
