import ConversationStore

/// A tool call in words, from its name and arguments: `lookupOrder {"id": 1042}` reads "lookup order 1042".
enum ToolCallDescription {
  static func words(name: String, input: JSONValue?) -> String {
    let arguments = input.map(values(of:)) ?? []
    return ([words(of: name)] + arguments).filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// camelCase and snake_case split into lowercase words.
  private static func words(of name: String) -> String {
    var result = ""
    for character in name {
      if character == "_" || character == "-" {
        result.append(" ")
      } else if character.isUppercase {
        if !result.isEmpty && result.last != " " { result.append(" ") }
        result += character.lowercased()
      } else {
        result.append(character)
      }
    }
    return result
  }

  /// The argument values, by key order so the words do not change between frames.
  private static func values(of value: JSONValue) -> [String] {
    switch value {
    case .null: return []
    case .bool(let flag): return [String(flag)]
    case .number(let number):
      if number == number.rounded(), abs(number) < 1e15 { return [String(Int(number))] }
      return [String(number)]
    case .string(let text): return [text]
    case .array(let items): return items.flatMap(values(of:))
    case .object(let fields): return fields.keys.sorted().flatMap { values(of: fields[$0]!) }
    }
  }
}
