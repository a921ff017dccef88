public import ConversationState

extension ChatPolicy {
  /// The default policy but for a send while the agent answers, which goes at once and streams its reply
  /// beside the running one (`FollowUpPolicy.overlap`): for stories about overlapping replies and the order
  /// of sends in flight, which the default's queue (`ConversationState.followUps`) would hold back.
  public static var overlapping: ChatPolicy {
    var policy = ChatPolicy()
    policy.whileAnswering = .overlap
    return policy
  }
}
