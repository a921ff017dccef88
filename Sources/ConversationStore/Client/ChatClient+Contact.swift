public import ConversationState

/// The anonymous user's contact details.
extension ChatClient {
  /// Gives the backend how the anonymous user can be reached (an e-mail from a pre-chat form), without
  /// signing them in: the identity stays the installation's, and so do its conversations and storage. The
  /// details go to `ChatBackend.updateContactDetails` once, on the client's worker; setting the same ones
  /// again sends nothing once the backend has them; empty details clear them. A retryable failure is sent
  /// again with the outbox's backoff (30 s to 240 s) or when the connection opens; an authorization failure
  /// waits for a fresh credential; a permanent one (the backend's `UNSUPPORTED`) shows as
  /// `state.backgroundError` and is not retried. They are not stored: set them again after a relaunch, as
  /// `identify`. Signing in or out forgets them.
  ///
  /// ```swift
  /// try client.setContactDetails(ContactDetails(email: "ana@example.com"))
  /// let upload = client.state.contactUpload  // .sending, then .idle once the backend has them
  /// ```
  ///
  /// Throws, sending nothing: `INVALID_CONTACT` for details outside `ContactDetails`'s rules (an e-mail
  /// without one `@`, a name with control characters); `INVALID_ACTION` while a user is signed in (their
  /// details are their account's).
  public func setContactDetails(_ details: ContactDetails) throws(ChatError) {
    if let refusal = details.refusal { throw refusal }
    guard identity == nil else {
      throw ChatError(
        .invalidAction, "Contact details are the anonymous user's; a signed-in user's are their account's.")
    }
    send(.setContactDetails(details))
  }
}
