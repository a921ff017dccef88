import ConversationStore
import Foundation

/// What the simulated agent says, chosen from the user's words: canned, but enough to show every path.
enum AgentReplies {
  /// The order number the user asked about ("order 1042"), which makes the agent call the app's tool.
  static func orderNumber(in text: String) -> Int? {
    let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }
    guard let index = words.firstIndex(of: "order"), index + 1 < words.count else { return nil }
    return Int(words[index + 1])
  }

  /// The order the user asked to cancel ("cancel order 1042"): the agent asks the user to approve its
  /// server-run `cancelOrder` tool before it runs it.
  static func cancellation(in text: String) -> Int? {
    text.lowercased().contains("cancel") ? orderNumber(in: text) : nil
  }

  /// Whether the user asked to change the delivery address: the agent asks where to, as a question the user
  /// answers with `/answer`.
  static func wantsAddressChange(_ text: String) -> Bool {
    text.lowercased().contains("address")
  }

  /// Follow-ups the agent offers with its answer when the user asks what to do next ("suggest"); nil
  /// otherwise, so the other scripts' answers come without any.
  static func suggestions(for text: String) -> [String]? {
    guard text.lowercased().contains("suggest") else { return nil }
    return ["Track order 1042", "Change the delivery address", "Talk to a person"]
  }

  /// Whether the user asked for a person.
  static func wantsHuman(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return lowered.contains("human") || lowered.contains("person") || lowered.contains("someone real")
  }

  /// Whether the user is wrapping up, which is when the agent asks for feedback.
  static func isClosing(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return lowered.contains("thank") || lowered.contains("bye") || lowered.contains("that's all")
  }

  /// What the agent thinks before a "why" question, streamed as a reasoning part; nil for other questions.
  static func reasoning(about text: String) -> String? {
    guard text.lowercased().contains("why") else { return nil }
    return "The user wants a reason, not a status. Check what the help center says before answering, and keep it short."
  }

  /// The help-center article a refund answer cites.
  static func source(for text: String) -> KnowledgeSource? {
    guard text.lowercased().contains("refund") else { return nil }
    return KnowledgeSource(
      id: "kb-refunds", title: "Refunds and returns", url: URL(string: "https://help.example.com/refunds"),
      origin: .knowledgeBase)
  }

  static func answer(to text: String, lookup: JSONValue?, variant: Int) -> String {
    if let lookup, case .object(let fields) = lookup {
      let status = fields["status"].flatMap { if case .string(let value) = $0 { value } else { nil } } ?? "unknown"
      let eta = fields["eta"].flatMap { if case .string(let value) = $0 { value } else { nil } } ?? "soon"
      return "Your order is \(status) and should arrive \(eta). Anything else I can check for you?"
    }
    if wantsHuman(text) { return "Of course. I'm connecting you with a person from the support team now." }
    let lowered = text.lowercased()
    if isClosing(text) { return "You're welcome! Glad I could help." }
    if lowered.contains("refund") {
      return "Refunds go back to the original payment method within 5 business days of approval."
    }
    if lowered.contains("hello") || lowered.contains("hi") {
      return "Hello! I can track orders, explain refunds, or get you a person. What do you need?"
    }
    let closings = [
      "I've noted that. Is there anything else I can help with?",
      "Thanks for the details. Here is what I found: everything on your account looks in order.",
      "Got it. If you tell me an order number, I can look it up for you.",
    ]
    return closings[variant % closings.count]
  }
}
