import Foundation
import VPSProtocol

/// `GET /v1/openapi.json`: an OpenAPI 3.0 description generated from `APIRoutes` and `OpenAPISchemas`.
enum OpenAPI {
    static func document() -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for route in APIRoutes.all {
            let template = route.path
            var item = paths[template] ?? [:]
            item[route.method.lowercased()] = OpenAPISchemas.operation(route)
            paths[template] = item
        }
        return [
            "openapi": "3.0.3",
            "info": ["title": "MultiSet VPS", "version": "1"],
            "components": OpenAPISchemas.components,
            "security": [["bearer": [String]()]],
            "paths": paths,
        ]
    }

    static let bytes: [UInt8] = {
        let data = (try? JSONSerialization.data(withJSONObject: document(), options: [.sortedKeys])) ?? Data("{}".utf8)
        return [UInt8](data)
    }()

    static var response: HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: bytes)
    }
}
