import Foundation
import VPSServer

/// `multiset clients create | list | revoke`: API clients in a data directory.
enum ClientsCommand {
    static let usage = """
        usage: multiset clients create --name NAME [--scopes "query write"] [--data DIR]
               multiset clients list [--data DIR]
               multiset clients revoke CLIENT_ID [--data DIR]

        The secret is printed once by `create` and stored only as a salted PBKDF2 hash.
        --data defaults to ./.multiset
        """

    static func run(_ args: inout Arguments) throws -> Int32 {
        if args.flag("help") {
            print(usage)
            return 0
        }
        let words = Array(args.positionals.dropFirst())
        let path = args.string("data") ?? ".multiset"
        switch words.first {
        case "create":
            guard let name = args.string("name"), !name.isEmpty else {
                throw UsageError("clients create needs --name\n\(usage)")
            }
            let scopes = args.string("scopes") ?? "query write"
            try args.rejectUnknown()
            guard scopes.split(separator: " ").allSatisfy({ $0 == "query" || $0 == "write" }) else {
                throw UsageError("--scopes takes 'query', 'write' or both")
            }
            let data = try DataDirectory(path: path)
            let (id, secret) = try data.createClient(name: name, scopes: scopes)
            print("client id:     \(id)\nclient secret: \(secret)\n(the secret is shown only now; store it safely)")
        case "list":
            try args.rejectUnknown()
            let data = try DataDirectory(path: path)
            for c in try data.store.clients() {
                print(
                    "\(c.id)  \(c.disabled ? "revoked" : "active ")  \(c.scopes.padding(toLength: 11, withPad: " ", startingAt: 0))  \(c.name)"
                )
            }
        case "revoke":
            guard words.count == 2 else { throw UsageError("clients revoke needs a client id\n\(usage)") }
            try args.rejectUnknown()
            let data = try DataDirectory(path: path)
            try data.store.setClientDisabled(id: words[1], true)
            print("revoked \(words[1])")
        default:
            throw UsageError(usage)
        }
        return 0
    }
}
