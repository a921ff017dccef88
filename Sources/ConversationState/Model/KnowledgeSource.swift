public import Foundation

/// A source an answer cites: a knowledge-base article, or a page on the web.
public struct KnowledgeSource: Hashable, Sendable, Codable {
  /// Where a cited source lives.
  public enum Origin: String, Hashable, Sendable, Codable {
    /// The service's own knowledge base: `id` is the article's ID there.
    case knowledgeBase
    /// Outside the service (a web search result, a document URL).
    case external
  }

  /// The source's ID as the agent named it (a knowledge-base article ID), when it has one.
  public var id: String?
  /// The cited article's title, as the link text.
  public var title: String
  /// Where the article is; `nil` for a source that cannot be opened.
  public var url: URL?
  /// Whether it is the service's own article or an outside one; nil when the server did not say.
  public var origin: Origin?

  /// A source as the server cited it.
  public init(id: String? = nil, title: String, url: URL? = nil, origin: Origin? = nil) {
    self.id = id
    self.title = title
    self.url = url
    self.origin = origin
  }
}
