import ConversationState
import ConversationTesting
import Foundation
import Testing

/// The reply notation's words for what agents do besides text: reasoning, sources, a failed tool call and
/// a call that waits for the user's approval. Read as written, and refused, naming the piece and why, when
/// malformed.
@Suite("Reply notation: reasoning, sources, failed tools and approvals")
struct ReplyScriptAgentDirectiveTests {
  @Test(
    "an agent directive reads as its step, its text as written after the name",
    arguments: [
      ("<reasoning Look the order up first.>", [.reasoning("Look the order up first.")]),
      ("<reasoning Look >|<reasoning  it up.>", [.reasoning("Look "), .reasoning(" it up.")]),
      (
        "<source https://example.com/help/shipping Shipping policy>",
        [.source(url: URL(string: "https://example.com/help/shipping")!, title: "Shipping policy")]
      ),
      ("<source https://example.com/help>", [.source(url: URL(string: "https://example.com/help")!, title: nil)]),
      (
        "<tool checkStock>|<fail checkStock The stock service did not answer.>",
        [
          .toolCall(name: "checkStock", execution: .server),
          .toolFailed(name: "checkStock", message: "The stock service did not answer."),
        ]
      ),
      (
        "<tool cancelOrder>|<approve cancelOrder Cancel order 1042?>",
        [
          .toolCall(name: "cancelOrder", execution: .server),
          .approval(name: "cancelOrder", question: "Cancel order 1042?"),
        ]
      ),
      (
        "<tool refund client>|<approve refund>",
        [.toolCall(name: "refund", execution: .client), .approval(name: "refund", question: nil)]
      ),
    ] as [(String, [ReplyScript.Step])])
  func reads(_ notation: String, _ steps: [ReplyScript.Step]) throws {
    // Given a reply written with an agent directive, when it is read, then it is that step, then a finish
    #expect(try ReplyScript(notation).steps == steps + [.finish])
  }

  @Test("reasoning is not the answer's text: the script's text is its deltas alone")
  func reasoningIsNotText() throws {
    let script = try ReplyScript("<reasoning Think first.>|Order 1042 |has shipped.|<source https://example.com>")
    #expect(script.text == "Order 1042 has shipped.")
  }

  @Test(
    "a malformed agent directive is refused, naming the piece and the form it expected",
    arguments: [
      ("<reasoning>", "<reasoning>", "expected <reasoning TEXT>"),
      ("Hi|<reasoning>|there", "<reasoning>", "expected <reasoning TEXT>"),
      ("<source>", "<source>", "expected <source URL> or <source URL TITLE>"),
      ("<source shipping-policy Shipping>", "<source shipping-policy Shipping>", "the URL absolute"),
      ("<source /help/shipping>", "<source /help/shipping>", "the URL absolute"),
      ("<fail>", "<fail>", "expected <fail NAME MESSAGE>"),
      ("<tool lookup>|<fail lookup>", "<fail lookup>", "expected <fail NAME MESSAGE>"),
      ("<approve>", "<approve>", "expected <approve NAME> or <approve NAME QUESTION>"),
    ])
  func refused(_ notation: String, _ piece: String, _ reason: String) {
    // Given a script with one malformed piece, when it is read, then the error names that piece and why
    let error = #expect(throws: ReplyScript.SyntaxError.self) { try ReplyScript(notation) }
    #expect(error?.piece == piece)
    #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "no error")")
  }
}
