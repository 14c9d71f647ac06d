import Foundation
import MultiSetCommandLine
import VPSServer

/// `multiset clients create | list | revoke`: API clients in a data directory.
enum ClientsCommand {
    /// The options of this command that take no value.
    static let switches: Set<String> = ["admin"]

    static let usage = """
        usage: multiset clients create --name NAME [--scopes "query write"] [--admin] [--account ID]
                                      [--data DIR | --postgres CONNINFO]
               multiset clients list [--data DIR | --postgres CONNINFO]
               multiset clients revoke CLIENT_ID [--data DIR | --postgres CONNINFO]

        The secret is printed once by `create` and stored only as a salted PBKDF2 hash.
        --admin adds the `admin` scope: the web console (/console) then manages the account's clients.
        --account puts the client in another account (24 lowercase hex digits; created when new); the
        default account is 000000000000000000000001. --data defaults to ./.multiset; --postgres works on a
        cluster's database instead (the one `multiset serve --postgres` uses).
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let words = Array(args.positionals.dropFirst())
        let path = args.string("data") ?? ".multiset"
        let conninfo = args.string("postgres")
        let cluster = { () throws -> PostgresCluster? in
            try conninfo.map { try PostgresCluster(conninfo: $0, connections: 1) }
        }
        switch words.first {
        case "create":
            guard let name = args.string("name"), !name.isEmpty else {
                throw UsageError("clients create needs --name\n\(usage)")
            }
            var scopes = args.string("scopes") ?? "query write"
            if args.flag("admin") { scopes += " admin" }
            let account = args.string("account") ?? DataDirectory.defaultAccountID
            try args.rejectUnknown()
            guard scopes.split(separator: " ").allSatisfy({ $0 == "query" || $0 == "write" || $0 == "admin" }) else {
                throw UsageError("--scopes takes 'query', 'write' or both (and --admin adds 'admin')")
            }
            guard Identifiers.isID(account) else { throw UsageError("--account takes 24 lowercase hex digits") }
            let shared = try cluster()
            let data = shared == nil ? try DataDirectory(path: path) : nil
            let store: ServerStore = shared?.store ?? data!.store
            if try store.account(id: account) == nil {
                try store.createAccount(
                    AccountRecord(id: account, name: account, createdAt: Date().timeIntervalSince1970))
            }
            let (id, secret) =
                try shared?.createClient(name: name, scopes: scopes, accountID: account)
                ?? data!.createClient(name: name, scopes: scopes, accountID: account)
            print("client id:     \(id)\nclient secret: \(secret)\n(the secret is shown only now; store it safely)")
        case "list":
            try args.rejectUnknown()
            let store: ServerStore = try cluster()?.store ?? DataDirectory(path: path).store
            for c in try store.clients() {
                print(
                    "\(c.id)  \(c.disabled ? "revoked" : "active ")  \(c.scopes.padding(toLength: 17, withPad: " ", startingAt: 0))  \(c.name)"
                )
            }
        case "revoke":
            guard words.count == 2 else { throw UsageError("clients revoke needs a client id\n\(usage)") }
            try args.rejectUnknown()
            let store: ServerStore = try cluster()?.store ?? DataDirectory(path: path).store
            try store.setClientDisabled(id: words[1], true)
            print("revoked \(words[1])")
        default:
            throw UsageError(usage)
        }
        return 0
    }
}
