#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few POSIX calls storage needs, with the crash-safety rules in one place.
///
/// Plain POSIX rather than `FileManager` because the guarantees are about exact calls: a private mode at
/// creation (never a window with a wider one), `fsync` of the file before the rename that publishes it, and of
/// the directory after, so a kill or power cut at any instant leaves the old file or the new one.
enum FileSystem {
  /// Only the user reads and writes what is stored.
  static let fileMode: mode_t = 0o600
  /// Only the user lists and enters storage directories.
  static let directoryMode: mode_t = 0o700

  /// Creates `path` and its missing parents with mode 0700. A file where a directory should be throws.
  static func createDirectory(_ path: String) throws(PersistenceError) {
    var isDirectory = false
    if exists(path, isDirectory: &isDirectory) {
      guard isDirectory else { throw PersistenceError(.notADirectory, path: path) }
      return
    }
    let parent = parentDirectory(of: path)
    if parent != path, !parent.isEmpty { try createDirectory(parent) }
    if mkdir(path, directoryMode) != 0 && errno != EEXIST { throw PersistenceError.io("mkdir", path: path) }
  }

  /// Whether something is at `path`, and whether it is a directory.
  static func exists(_ path: String, isDirectory: inout Bool) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0 else { return false }
    isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    return true
  }

  /// The whole file, or nil when there is none. A directory where the file should be throws.
  static func contents(of path: String) throws(PersistenceError) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor < 0 {
      if errno == ENOENT { return nil }
      throw PersistenceError.io("open", path: path)
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw PersistenceError.io("fstat", path: path) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw PersistenceError(.notAFile, path: path) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
      }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw PersistenceError.io("read", path: path) }
      if count == 0 { break }  // the file shrank while we read it
      filled += count
    }
    if filled < bytes.count { bytes.removeSubrange(filled...) }
    return bytes
  }

  /// Replaces `path` with `bytes` atomically: a temporary file in the same directory (mode 0600), fsync,
  /// rename over the old file, fsync of the directory. A crash at any point leaves the old file or the new.
  static func writeAtomically(_ bytes: [UInt8], to path: String) throws(PersistenceError) {
    let temporary = path + ".tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fileMode)
    guard descriptor >= 0 else { throw PersistenceError.io("open", path: temporary) }
    do throws(PersistenceError) {
      try writeAll(bytes, to: descriptor, path: temporary)
      guard fsync(descriptor) == 0 else { throw PersistenceError.io("fsync", path: temporary) }
    } catch {
      close(descriptor)
      unlink(temporary)
      throw error
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      let error = PersistenceError.io("rename", path: path)
      unlink(temporary)
      throw error
    }
    try syncDirectory(parentDirectory(of: path))
  }

  /// Writes every byte, retrying short writes and interruptions.
  static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(PersistenceError) {
    try StorageFaults.check("write", path: path)
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        write(descriptor, buffer.baseAddress! + written, buffer.count - written)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw PersistenceError.io("write", path: path) }
      written += count
    }
  }

  /// Makes a rename or a new file in `directory` durable.
  static func syncDirectory(_ directory: String) throws(PersistenceError) {
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw PersistenceError.io("open", path: directory) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw PersistenceError.io("fsync", path: directory) }
  }

  /// Renames a file that could not be read to `<path>.corrupt-<n>` (the first free n), so nothing is deleted
  /// and support can look at it; returns the new path.
  static func moveAside(_ path: String) throws(PersistenceError) -> String {
    var attempt = 1
    var isDirectory = false
    while exists("\(path).corrupt-\(attempt)", isDirectory: &isDirectory) { attempt += 1 }
    let aside = "\(path).corrupt-\(attempt)"
    guard rename(path, aside) == 0 else { throw PersistenceError.io("rename", path: path) }
    try? syncDirectory(parentDirectory(of: path))
    return aside
  }

  /// Deletes `path` and everything under it; nothing there is fine.
  static func removeTree(_ path: String) throws(PersistenceError) {
    var isDirectory = false
    guard exists(path, isDirectory: &isDirectory) else { return }
    if isDirectory {
      for name in try entries(of: path) { try removeTree(path + "/" + name) }
      guard rmdir(path) == 0 else { throw PersistenceError.io("rmdir", path: path) }
    } else {
      guard unlink(path) == 0 else { throw PersistenceError.io("unlink", path: path) }
    }
  }

  /// The names in a directory, without `.` and `..`.
  static func entries(of directory: String) throws(PersistenceError) -> [String] {
    guard let stream = opendir(directory) else { throw PersistenceError.io("opendir", path: directory) }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Closes a descriptor (for callers whose own `close` shadows the system's).
  static func closeFile(_ descriptor: Int32) { _ = close(descriptor) }

  /// The permission bits of what is at `path` (for tests and diagnostics).
  static func mode(of path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
  }

  static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
