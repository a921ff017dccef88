/// A function the app runs itself, as an agent protocol offers it to the agent or model on every request
/// (AG-UI's `RunAgentInput.tools`, OpenAI's `tools`): a call to it is app-run (`ToolCall.Execution.client`),
/// the run or request ends with the call pending, and the app's result goes back on the next one.
///
/// ```swift
/// let weather = AppTool(
///   name: "get_weather", description: "The forecast for a city",
///   parameters: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])
/// ```
public struct AppTool: Hashable, Sendable {
  /// The name the agent calls it by; unique among the tools of one request.
  public var name: String
  public var description: String
  /// A JSON Schema of the arguments. The agent's arguments are untrusted: check them against it.
  public var parameters: JSONValue

  public init(name: String, description: String, parameters: JSONValue = ["type": "object", "properties": [:]]) {
    self.name = name
    self.description = description
    self.parameters = parameters
  }
}
