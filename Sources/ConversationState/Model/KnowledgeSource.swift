public import Foundation

/// A source an answer cites: a knowledge-base article (or a passage of one), or a page on the web.
///
/// A source has up to two links, for two different readers: `url` is the public page the user opens from
/// the answer, and `internalURL` is the page inside the service that the people running it open (the
/// help-center editor of the article). Show the user `url` only.
///
/// Several sources can cite one document (two passages of the same article): they share `documentID` and
/// differ by `id`.
///
/// Stored as JSON by the synthesized coding: a field that is nil is left out, and a source written before
/// `documentID` and `internalURL` existed reads back with both nil.
public struct KnowledgeSource: Hashable, Sendable, Codable {
  /// Where a cited source lives.
  public enum Origin: String, Hashable, Sendable, Codable {
    /// The service's own knowledge base: `id` is the article's ID there.
    case knowledgeBase
    /// Outside the service (a web search result, a document URL).
    case external
  }

  /// The source's ID as the agent named it (a knowledge-base article or passage ID), when it has one; nil
  /// when the server gave none.
  public var id: String?
  /// The ID of the document the cited passage comes from, when the server says; nil when it does not (or
  /// when the source is the whole document and `id` already names it). Sources of one document share it.
  public var documentID: String?
  /// The cited article's title, as the link text.
  public var title: String
  /// The public (external) link: the page a user opens from the answer; `nil` for a source the user cannot
  /// open.
  public var url: URL?
  /// The internal link: where the source is inside the service (the help-center editor an agent opens to
  /// fix the article), not meant for the user; `nil` when the server sent none.
  public var internalURL: URL?
  /// Whether it is the service's own article or an outside one; nil when the server did not say.
  public var origin: Origin?

  /// A source as the server cited it.
  public init(
    id: String? = nil, documentID: String? = nil, title: String, url: URL? = nil, internalURL: URL? = nil,
    origin: Origin? = nil
  ) {
    self.id = id
    self.documentID = documentID
    self.title = title
    self.url = url
    self.internalURL = internalURL
    self.origin = origin
  }
}
