import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// AI SDK 7's metadata on tool parts, kept as one truth: what the server streamed with a call (the
/// provider's metadata about the call and its result, the tool's `toolMetadata`, a provider-run dynamic
/// tool's name and title) goes back with the call in every later request, after a relaunch too, as `useChat`
/// sends it. The scripted server (`aisdk_scripted_server.py`, scenario `tool-metadata`) refuses a chat whose
/// earlier call comes back without its provider metadata, as a model that signs its own calls does.
@Suite(
  "AI SDK 7 tool metadata against scripted streams",
  .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKToolMetadataTests {
  let server: ScriptedAISDKServer

  init() async throws { server = try await ScriptedAISDKServer.shared() }

  /// The tool parts of the assistant messages in the last request the server got for chat `id`, by call.
  func toolParts(sentFor id: ConversationID) async throws -> [String: [String: Any]] {
    let bodies = try await server.requests().compactMap { $0["body"] as? [String: Any] }
    let last = try #require(bodies.last { $0["id"] as? String == id.rawValue })
    var parts: [String: [String: Any]] = [:]
    for message in last["messages"] as? [[String: Any]] ?? [] where message["role"] as? String == "assistant" {
      for part in message["parts"] as? [[String: Any]] ?? [] {
        if let call = part["toolCallId"] as? String { parts[call] = part }
      }
    }
    return parts
  }

  @Test("after a relaunch, a call goes back with the metadata it was streamed with, and the server goes on")
  func metadataSurvivesRelaunch() async throws {
    // Given an answer whose order lookup came with provider and tool metadata, beside a provider-run search
    let endpoint = server.endpoint("tool-metadata")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, first) = try await story.firstLaunch("where is order 42?") { $0.messages.last?.reply == .completed }
    #expect(first.messages.last?.toolCalls.map(\.name) == ["lookup_order", "web_search"])

    // When the app is relaunched and the user asks again
    let done = try await story.relaunchAndSend(id, "and now?")

    // Then the server, which refuses a call without its provider metadata, answered
    #expect(done?.messages.last?.text == "Order 42 has shipped.")
    // And the earlier answer's parts went back as the server streamed them
    let parts = try await toolParts(sentFor: id)
    let order = try #require(parts["call-order-0"])
    #expect(order["type"] as? String == "tool-lookup_order")
    #expect(order["state"] as? String == "output-available")
    let call = (order["callProviderMetadata"] as? [String: Any])?["scripted"] as? [String: Any]
    #expect(call?["thoughtSignature"] as? String == "c2lnLW9yZGVy")
    let result = (order["resultProviderMetadata"] as? [String: Any])?["scripted"] as? [String: Any]
    #expect(result?["resultId"] as? String == "r-0")
    #expect((order["toolMetadata"] as? [String: Any])?["clientName"] as? String == "orders-mcp")
    let search = try #require(parts["call-search-0"])
    #expect(search["type"] as? String == "dynamic-tool")
    #expect(search["toolName"] as? String == "web_search")
    #expect(search["providerExecuted"] as? Bool == true)
    #expect(search["title"] as? String == "Web search")
  }
}
