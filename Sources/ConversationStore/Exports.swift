// One import for a host: `import ConversationStore` brings the runtime and the whole vocabulary (state,
// actions, effects, errors), the pure reducers and storage, which stay in modules of their own so that they
// can be used, and tested, without a runtime.
@_exported public import ConversationState
@_exported public import Persistence
@_exported public import Reducers
