public import ConversationState

/// A stream that broke one of AG-UI 1.0's rules (a producer bug): the reply ends `rejected` with
/// `INVALID_EVENT`, its message naming the rule. Distinct from a run that reports its own failure
/// (`RUN_ERROR`, the reply `failed`) and from a stream cut off before its end (`truncated`).
public struct AGUIViolation: Error, Hashable, Sendable, CustomStringConvertible {
  /// The rule, by what it asks.
  public enum Rule: String, Hashable, Sendable, CaseIterable {
    /// The first event must be `RUN_STARTED` or `RUN_ERROR`.
    case firstEvent = "first-event"
    /// `RUN_STARTED` while a run is active.
    case runAlreadyActive = "run-already-active"
    /// After `RUN_FINISHED` only `RUN_STARTED` or `RUN_ERROR`; after `RUN_ERROR` only `RUN_STARTED`.
    case eventAfterRunEnded = "event-after-run-ended"
    /// A run's `RUN_STARTED` and `RUN_FINISHED` name different runs or threads.
    case runIDsDisagree = "run-ids-disagree"
    /// A start for a message, tool call, reasoning message, span, step or subagent already open.
    case alreadyOpen = "already-open"
    /// Content or an end for something not open.
    case notOpen = "not-open"
    /// `RUN_FINISHED` with a message, tool call, step, reasoning or subagent still open.
    case leftOpen = "left-open"
    /// A chunk without the fields its first chunk must carry, or a reopened item whose opener differs.
    case chunkOpener = "chunk-opener"
    /// A chunk with no ID that could continue more than one open item, or none.
    case chunkContinuation = "chunk-continuation"
    /// One item streamed in both the chunk and the start/content/end form.
    case formsMixed = "forms-mixed"
    /// A `TOOL_CALL_RESULT` for a call the run never started.
    case resultForUnknownCall = "result-for-unknown-call"
    /// An event naming a subagent lane that is not open.
    case subagentLane = "subagent-lane"
    /// The event is not a JSON object, lacks a required field, or a field has the wrong type.
    case malformed = "malformed"
    /// The response never started the run this client asked for (its `runId`).
    case requestedRunMissing = "requested-run-missing"
    /// A tool call reopened after its end: 1.0 allows it, this client does not (the app may already have
    /// acted on the call's arguments).
    case reopenedToolCall = "reopened-tool-call"
  }

  public var rule: Rule
  public var message: String

  public init(_ rule: Rule, _ message: String) {
    self.rule = rule
    self.message = message
  }

  public var description: String { "AG-UI rule \(rule.rawValue): \(message)" }

  /// The error the reply ends with: `INVALID_EVENT`, which leaves it `rejected`.
  public var chatError: ChatError { ChatError(.invalidEvent, description) }
}
