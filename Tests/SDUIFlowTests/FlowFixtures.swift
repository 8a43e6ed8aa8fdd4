// FlowFixtures.swift - flows the tests share, written inline so each test
// reads what it runs.
import Foundation
import SDUICore
import SDUIFlow
import SDUITestSupport

enum FlowFixtures {
    /// A flow: welcome → goal (required choice) → strength | other → done.
    static let onboarding = """
    {"id": "onboarding", "version": 1, "themeId": "theme_mint_dark", "start": "welcome",
     "screens": [
      {"id": "welcome", "blocks": [{"type": "header", "title": "Hi"},
                                   {"type": "cta", "primary": {"label": "Start", "action": "next"}}],
       "next": [{"to": "goal"}]},
      {"id": "goal", "blocks": [{"type": "header", "title": "What is your goal?"},
                                {"type": "choice", "key": "goal", "required": true,
                                 "options": [{"label": "Be stronger", "value": "strength"},
                                             {"label": "Build muscles", "value": "muscles"}]},
                                {"type": "cta", "primary": {"label": "Next", "action": "next"}}],
       "next": [{"when": "answers.goal == 'strength'", "to": "strength"},
                {"when": "attributes.country == 'DE' && answers.goal == 'muscles'", "to": "muscles_de"},
                {"to": "name"}]},
      {"id": "strength", "blocks": [{"type": "slider", "key": "days", "min": 1, "max": 7}],
       "next": [{"to": "name"}]},
      {"id": "muscles_de", "blocks": [{"type": "header", "title": "Hallo"}], "next": [{"to": "name"}]},
      {"id": "name", "blocks": [{"type": "text_input", "key": "name", "required": true}],
       "next": [{"to": "done"}]},
      {"id": "done", "blocks": [{"type": "header", "title": "Done"}]}
     ]}
    """

    static func flow(_ text: String = onboarding) throws -> FlowDefinition {
        try FlowDefinition(json: Data(text.utf8), source: "test.json")
    }

    /// A fresh journal in a temporary directory.
    static func journal(_ name: String = "flows.sqlite", in dir: URL = Fixtures.temporaryDirectory(),
                        limits: FlowJournal.Limits = FlowJournal.Limits()) throws -> FlowJournal {
        try FlowJournal(path: dir.appendingPathComponent(name).path, limits: limits)
    }

    /// The events queued in `journal`, decoded, oldest first.
    static func queued(_ journal: FlowJournal) throws -> [FlowEvent] {
        try journal.peek(maxEvents: 100_000, maxBytes: 1 << 30).map {
            try JSONDecoder().decode(FlowEvent.self, from: $0.json)
        }
    }
}
