/// `GET /v1/openapi.json`: an OpenAPI 3.0 description of every route.
enum OpenAPI {
    static let document: String = {
        let error =
            ##"{"description":"Error","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Error"}}}}"##
        func op(_ summary: String, auth: Bool = true, body: String? = nil, params: String = "[]") -> String {
            var s =
                #"{"summary":"\#(summary)","parameters":\#(params),"responses":{"200":{"description":"OK"},"400":\#(error),"401":\#(error),"404":\#(error)}"#
            if let body { s += #","requestBody":{"content":{"\#(body)":{"schema":{"type":"object"}}}}"# }
            if !auth { s += #","security":[]"# }
            return s + "}"
        }
        let key = #"[{"name":"key","in":"path","required":true,"schema":{"type":"string"}}]"#
        let paths: [(String, String)] = [
            (
                "/v1/m2m/token",
                #"{"post":\#(op("Client credentials to a bearer token (Basic or Username/Password headers)", auth: false))}"#
            ),
            ("/v1/vps/map/query-form", #"{"post":\#(op("Single-frame localization", body: "multipart/form-data"))}"#),
            (
                "/v1/vps/map/query",
                #"{"post":\#(op("Single-frame localization, JSON with a base64 image", body: "application/json"))}"#
            ),
            (
                "/v1/vps/map/multi-image-query",
                #"{"post":\#(op("Multi-frame localization (4–6 images with tracking poses)", body: "multipart/form-data"))}"#
            ),
            ("/v1/vps/object/query", #"{"post":\#(op("Object localization", body: "multipart/form-data"))}"#),
            (
                "/v1/vps/map",
                #"{"get":\#(op("List maps", params: #"[{"name":"page","in":"query","schema":{"type":"integer"}},{"name":"limit","in":"query","schema":{"type":"integer"}}]"#))}"#
            ),
            (
                "/v1/vps/map/{key}",
                #"{"get":\#(op("Map details by id or code", params: key)),"delete":\#(op("Delete a map by id", params: key))}"#
            ),
            (
                "/v1/vps/map/upload",
                #"{"post":\#(op("Upload a map file (201) or a capture dataset built in the background (202)", body: "multipart/form-data"))}"#
            ),
            ("/v1/vps/map-set/{key}", #"{"get":\#(op("Map-set details by code or id", params: key))}"#),
            ("/v1/vps/object/{key}", #"{"get":\#(op("Object details", params: key))}"#),
            (
                "/v1/file",
                #"{"get":\#(op("Signed download link for a file key", params: #"[{"name":"key","in":"query","required":true,"schema":{"type":"string"}}]"#))}"#
            ),
            ("/v1/files/download", #"{"get":\#(op("Download through a signed link", auth: false))}"#),
            ("/v1/account/plan-details", #"{"get":\#(op("Plan details"))}"#),
            ("/v1/health", #"{"get":\#(op("Health", auth: false))}"#),
            ("/healthz", #"{"get":\#(op("Health", auth: false))}"#),
            ("/metrics", #"{"get":\#(op("Prometheus metrics", auth: false))}"#),
            ("/v1/openapi.json", #"{"get":\#(op("This document", auth: false))}"#),
        ]
        let pathsJSON = paths.map { #""\#($0.0)":\#($0.1)"# }.joined(separator: ",")
        return #"{"openapi":"3.0.3","info":{"title":"MultiSet VPS","version":"1"},"#
            + #""components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}},"schemas":{"Error":{"type":"object","properties":{"message":{"type":"string"},"code":{"type":"string"}},"required":["message","code"]}}},"#
            + #""security":[{"bearer":[]}],"paths":{\#(pathsJSON)}}"#
    }()
}
