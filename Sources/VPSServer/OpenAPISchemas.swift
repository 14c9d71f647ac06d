import VPSProtocol

/// The schemas of `/v1/openapi.json`: per route its parameters, request body, and every status it
/// can answer.
enum OpenAPISchemas {
    static var components: [String: Any] {
        [
        "securitySchemes": [
            "bearer": ["type": "http", "scheme": "bearer"],
            "basic": ["type": "http", "scheme": "basic"],
        ],
        "schemas": [
            "Error": [
                "type": "object", "required": ["message", "code"],
                "properties": ["message": ["type": "string"], "code": ["type": "string"]],
            ]
        ],
        ]
    }

    static func error(_ description: String) -> [String: Any] {
        ["description": description, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]
    }

    static func operation(_ route: APIRoute) -> [String: Any] {
        var responses: [String: Any] = [
            "200": ["description": "OK"], "400": error("Bad request"), "405": error("Method not allowed"),
        ]
        var op: [String: Any] = ["summary": route.summary, "operationId": route.metric + "-" + route.method.lowercased()]
        switch route.access {
        case .open, .signedLink:
            op["security"] = [[String: Any]]()
        case .credentials:
            op["security"] = [["basic": [String]()], [String: Any]()]
            responses["401"] = error("Invalid credentials")
            responses["403"] = error("Client disabled")
            responses["429"] = error("Too many token requests")
        case .bearer:
            responses["401"] = error("Missing, invalid or expired token")
            responses["403"] = error("Missing scope or disabled client")
            responses["429"] = error("Rate limited")
        }
        if route.method == "POST" {
            responses["413"] = error("Body too large")
        }
        responses["503"] = error("Busy or out of time; retry")
        op["responses"] = responses
        let parameters = route.segments.filter { $0.hasPrefix("{") }.map { segment -> [String: Any] in
            ["name": String(segment.dropFirst().dropLast()), "in": "path", "required": true, "schema": ["type": "string"]]
        }
        if !parameters.isEmpty { op["parameters"] = parameters }
        return op
    }
}
