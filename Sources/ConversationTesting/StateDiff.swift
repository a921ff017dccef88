import ConversationState
import Foundation

/// The paths at which two values differ, one line each: `messages[c-7].text: "Hel" -> "Hello"`.
///
/// Collections of messages and conversations are compared by ID, and the rows that did not change are
/// counted rather than printed ("998 messages unchanged"), so a failure in a long conversation stays short.
public enum StateDiff {
  /// Lines describing how `actual` differs from `expected`; empty when they print the same.
  public static func lines<Value>(expected: Value, actual: Value, limit: Int = 40) -> [String] {
    var lines: [String] = []
    diff(expected, actual, path: "", into: &lines)
    if lines.count > limit { lines = Array(lines.prefix(limit)) + ["… and \(lines.count - limit) more differences"] }
    return lines
  }

  private static func diff(_ expected: Any, _ actual: Any, path: String, into lines: inout [String]) {
    if let expected = expected as? MessageList, let actual = actual as? MessageList {
      return diffRows(
        expected.map { ($0.clientID.rawValue, $0) }, actual.map { ($0.clientID.rawValue, $0) }, noun: "messages",
        path: path, into: &lines)
    }
    if let expected = expected as? ConversationList, let actual = actual as? ConversationList {
      return diffRows(
        expected.map { ($0.id.rawValue, $0) }, actual.map { ($0.id.rawValue, $0) }, noun: "conversations",
        path: path, into: &lines)
    }
    if let expected = expected as? StreamedText, let actual = actual as? StreamedText {
      return leaf(expected.string, actual.string, path: path, into: &lines)
    }
    if expected is Date || expected is String || expected is any StringIdentifier {
      return leaf(expected, actual, path: path, into: &lines)
    }
    let expectedMirror = Mirror(reflecting: expected)
    let actualMirror = Mirror(reflecting: actual)
    switch expectedMirror.displayStyle {
    case .optional:
      switch (expectedMirror.children.first, actualMirror.children.first) {
      case (nil, nil): return
      case (let some?, let other?): return diff(some.value, other.value, path: path, into: &lines)
      default: return leaf(expected, actual, path: path, into: &lines)
      }
    case .enum:
      guard let expectedCase = expectedMirror.children.first, let actualCase = actualMirror.children.first,
        expectedCase.label == actualCase.label
      else { return leaf(expected, actual, path: path, into: &lines) }
      return diff(expectedCase.value, actualCase.value, path: path, into: &lines)
    case .collection:
      let expectedItems = expectedMirror.children.map(\.value)
      let actualItems = actualMirror.children.map(\.value)
      guard expectedItems.count == actualItems.count else { return leaf(expected, actual, path: path, into: &lines) }
      for (index, pair) in zip(expectedItems, actualItems).enumerated() {
        diff(pair.0, pair.1, path: "\(path)[\(index)]", into: &lines)
      }
    case .dictionary:
      let expectedEntries = entries(expectedMirror)
      let actualEntries = entries(actualMirror)
      for key in Set(expectedEntries.keys).union(actualEntries.keys).sorted() {
        switch (expectedEntries[key], actualEntries[key]) {
        case (let some?, let other?): diff(some, other, path: "\(path)[\(key)]", into: &lines)
        case (let some?, nil): lines.append("\(path)[\(key)]: \(show(some)) -> (absent)")
        case (nil, let other?): lines.append("\(path)[\(key)]: (absent) -> \(show(other))")
        case (nil, nil): break
        }
      }
    case .struct, .class, .tuple:
      guard !expectedMirror.children.isEmpty else { return leaf(expected, actual, path: path, into: &lines) }
      for (expectedChild, actualChild) in zip(expectedMirror.children, actualMirror.children) {
        let label = expectedChild.label ?? "?"
        diff(expectedChild.value, actualChild.value, path: path.isEmpty ? label : "\(path).\(label)", into: &lines)
      }
    default:
      leaf(expected, actual, path: path, into: &lines)
    }
  }

  private static func diffRows<Row>(
    _ expected: [(String, Row)], _ actual: [(String, Row)], noun: String, path: String, into lines: inout [String]
  ) {
    let expectedByID = Dictionary(expected, uniquingKeysWith: { first, _ in first })
    let actualByID = Dictionary(actual, uniquingKeysWith: { first, _ in first })
    var unchanged = 0
    var order: [String] = actual.map(\.0)
    order += expected.map(\.0).filter { actualByID[$0] == nil }
    for id in order {
      let rowPath = "\(path)[\(id)]"
      switch (expectedByID[id], actualByID[id]) {
      case (let before?, let after?):
        let start = lines.count
        diff(before, after, path: rowPath, into: &lines)
        if lines.count == start { unchanged += 1 }
      case (let before?, nil): lines.append("\(rowPath): \(show(before)) -> (absent)")
      case (nil, let after?): lines.append("\(rowPath): (absent) -> \(show(after))")
      case (nil, nil): break
      }
    }
    if expected.map(\.0) != actual.map(\.0) && Set(expected.map(\.0)) == Set(actual.map(\.0)) {
      lines.append("\(path): order \(expected.map(\.0)) -> \(actual.map(\.0))")
    }
    if unchanged > 0 && lines.contains(where: { $0.hasPrefix(path) }) {
      lines.append("\(path): \(unchanged) \(noun) unchanged")
    }
  }

  private static func entries(_ mirror: Mirror) -> [String: Any] {
    var result: [String: Any] = [:]
    for child in mirror.children {
      let pair = Array(Mirror(reflecting: child.value).children)
      guard pair.count == 2 else { continue }
      result[String(describing: pair[0].value)] = pair[1].value
    }
    return result
  }

  private static func leaf(_ expected: Any, _ actual: Any, path: String, into lines: inout [String]) {
    let before = show(expected)
    let after = show(actual)
    if before != after { lines.append("\(path.isEmpty ? "value" : path): \(before) -> \(after)") }
  }

  static func show(_ value: Any) -> String {
    if let text = value as? String { return String(reflecting: text) }
    if let identifier = value as? any StringIdentifier { return String(reflecting: identifier.rawValue) }
    if let date = value as? Date { return date.formatted(.iso8601) }
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional { return mirror.children.first.map { show($0.value) } ?? "nil" }
    return String(describing: value)
  }
}
