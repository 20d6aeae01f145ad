import AreaWatchCore
import Glibc
import Testing

/// The one `readdir` loop: every entry but `.` and `..`, kinds as recorded, by path or descriptor.
struct DirectoryListingTests {
    @Test func listsEveryEntryWithItsKind() throws {
        var template = Array("/tmp/aw-listing-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let folder = String(cString: try #require(made))
        defer { _ = system("rm -rf '\(folder)'") }
        let names = ["a.csv", ".hidden", "z z", "é.json"] + (0..<300).map { "file-\($0)" }
        for name in names { close(open(folder + "/" + name, O_CREAT | O_WRONLY, 0o644)) }
        #expect(mkdir(folder + "/sub", 0o755) == 0)
        #expect(symlink("sub", folder + "/link") == 0)

        let entries = try #require(DirectoryListing.entries(of: folder))
        #expect(Set(entries.map(\.name)) == Set(names + ["sub", "link"]))
        #expect(entries.count == names.count + 2)
        for entry in entries where !entry.kindUnknown {
            #expect(entry.isFolder == (entry.name == "sub"), "\(entry.name)")
        }
        #expect(Set(DirectoryListing.names(of: folder)) == Set(entries.map(\.name)))

        let descriptor = open(folder, O_RDONLY | O_DIRECTORY)
        #expect(
            DirectoryListing.entries(ofDescriptor: descriptor).map { Set($0.map(\.name)) } == Set(entries.map(\.name)))
    }

    @Test func aMissingFolderIsNil() {
        #expect(DirectoryListing.entries(of: "/nonexistent-aw-folder/x") == nil)
        #expect(DirectoryListing.names(of: "/nonexistent-aw-folder/x").isEmpty)
        #expect(DirectoryListing.entries(ofDescriptor: open("/etc/hostname", O_RDONLY)) == nil)
    }
}
