public import ConversationState

/// A function the app runs itself, offered to the model on every request (`tools`): a call to it is
/// app-run, its result goes back on the next request. The same value AG-UI offers (`AGUITool`).
public typealias OpenAITool = AppTool
