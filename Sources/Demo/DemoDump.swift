import ConversationStore
import Foundation

/// `demo dump`: what is stored, as JSON: scopes, conversations (message counts and IDs, draft), the outbox,
/// and the files moved aside as corrupt. Message text is left out: a dump is for bug reports.
enum DemoDump {
  static func json(of storage: ChatStorage) throws -> String {
    let inventory = try storage.inventory()
    let scopes: [JSONValue] = inventory.scopes.map { scope in
      .object([
        "directory": .string(scope.directory),
        "conversations": .array(
          scope.conversations.map { conversation in
            let state = conversation.state
            return .object([
              "file": .string(conversation.file),
              "id": state.conversationID.map { .string($0.rawValue) } ?? .null,
              "title": state.title.map { .string($0) } ?? .null,
              "messages": .number(Double(state.messages.count)),
              "archivedMessages": .number(Double(conversation.archivedMessages)),
              "messageIDs": .array(state.messages.map { .string($0.serverID?.rawValue ?? $0.clientID.rawValue) }),
              "draftLength": .number(Double(state.draft.count)),
              "queued": .number(Double(state.messages.outgoing.count)),
            ])
          }),
        "outbox": .array(scope.outbox.map { .string($0.id.rawValue) }),
        "unreadable": .object(scope.unreadable.mapValues { .string($0) }),
      ])
    }
    let document: JSONValue = .object([
      "root": .string(storage.root),
      "installationID": inventory.installationID.map { .string($0.rawValue) } ?? .null,
      "scopes": .array(scopes),
      "movedAside": .array(inventory.movedAside.map { .string($0) }),
    ])
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(document), as: UTF8.self)
  }
}
