// One import for a host: `import ConversationStore` brings the runtime and the whole vocabulary (state,
// actions, effects, errors) and the pure reducers, which stay in modules of their own so that they can be
// used, and tested, without a runtime.
@_exported public import ConversationState
@_exported public import Reducers
