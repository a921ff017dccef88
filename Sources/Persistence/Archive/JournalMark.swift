/// How far into a conversation's journal the archive holds every committed message: a prefix of the journal,
/// named by its length and its fingerprint (`RecordFile.Contents.chains`).
///
/// The archive stores it in the same transaction as the messages it covers, so the two can never disagree:
/// a transaction a crash loses takes its mark with it, and the mark then names an older, shorter prefix.
/// Opening a conversation writes into the archive only what the journal holds after its mark; a mark that
/// names no prefix of the journal (a rewrite that a crash cut before its rename, a file from elsewhere, an
/// archive that was replaced) makes it write everything, as before marks existed. Only a prefix with the
/// same records, checksums and lengths as the marked one passes for it: then its messages are the marked
/// ones, and the archive holds them.
struct JournalMark: Equatable, Sendable {
  /// Bytes of the journal, header included, up to the end of the last record covered.
  var length: Int
  /// The journal's fingerprint after that record.
  var chain: UInt64
}
