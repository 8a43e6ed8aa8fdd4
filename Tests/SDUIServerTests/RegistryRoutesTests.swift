// RegistryRoutesTests.swift - the route table: request targets matched as the router matches them, and what each route takes.
#if Server
import Foundation
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryRoutesTests {
    /// A target reaches the route the router would send it to: empty path
    /// components skipped, the query aside, `:id` any one component.
    @Test func targetsMatchAsTheRouterMatches() {
        let cases: [(String, String?)] = [
            ("/events", "events"), ("//events/", "events"), ("/events?x=1", "events"),
            ("/screens/home", "screens/:id"), ("/screens/no%3Asuch?ids=a", "screens/:id"), ("/flows/x", "flows/:id"),
            ("/health", "health"), ("/health/live", "health/live"), ("/health/ready/", "health/ready"),
            ("/design-tokens?ids=a,b", "design-tokens"), ("/metrics", "metrics"),
            ("/screens", nil), ("/screens/a/b", nil), ("/nowhere", nil), ("/", nil), ("/Events", nil), ("/x/events", nil),
        ]
        for (target, path) in cases {
            #expect(RegistryRoutes.route(forTarget: target)?.path == path, "\(target)")
        }
    }

    /// Only /events takes POST, and only POST; the rest GET and HEAD.
    @Test func whatEachRouteTakes() throws {
        let events = try #require(RegistryRoutes.route(forTarget: "/events"))
        #expect(events.allow == "POST" && events.takes("POST") && !events.takes("GET"))
        #expect(events.notAllowedMessage == "/events answers POST only")
        for route in RegistryRoutes.all where route.path != "events" {
            #expect(route.allow == "GET, HEAD" && route.takes("HEAD") && !route.takes("POST") && !route.takes("TRACE"))
            #expect(route.notAllowedMessage == "this resource answers GET and HEAD only")
        }
    }

    /// The table lists the paths schemas/openapi.json documents, no more.
    @Test func theTableIsTheDocumentsPaths() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("schemas/openapi.json")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let paths = try #require(doc["paths"] as? [String: [String: Any]])
        let table = Dictionary(uniqueKeysWithValues: RegistryRoutes.all.map {
            ($0.templatePath, Set($0.methods.map { $0.rawValue.lowercased() }))
        })
        #expect(Set(table.keys) == Set(paths.keys))
        for (path, methods) in table {
            let documented = Set(paths[path]?.keys.filter { ["get", "head", "post", "put", "delete", "patch", "options", "trace"]
                .contains($0) } ?? [])
            #expect(documented == methods, "\(path)")
        }
    }
}
#endif
