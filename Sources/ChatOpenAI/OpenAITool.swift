public import ConversationState

/// A function the app runs itself, offered to the model on every request (`tools`): a call to it is
/// app-run, its result goes back on the next request.
///
/// ```swift
/// let weather = OpenAITool(
///   name: "get_weather", description: "The forecast for a city",
///   parameters: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])
/// ```
public struct OpenAITool: Hashable, Sendable {
  public var name: String
  public var description: String
  /// The JSON Schema of the arguments.
  public var parameters: JSONValue

  public init(name: String, description: String, parameters: JSONValue = ["type": "object", "properties": [:]]) {
    self.name = name
    self.description = description
    self.parameters = parameters
  }
}
