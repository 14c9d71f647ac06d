/// One of the account's maps, as the Landing screen lists them.
public struct AccountMap: Sendable, Equatable {
    /// The map's id and code (what a localization names).
    public var id: String, code: String
    /// Its name.
    public var name: String
    /// `active`, `processing`, `failed` or `inactive`.
    public var status: String

    /// A map entry.
    public init(id: String, code: String, name: String, status: String) {
        self.id = id
        self.code = code
        self.name = name
        self.status = status
    }
}
