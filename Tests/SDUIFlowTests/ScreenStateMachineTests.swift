import Foundation
import SDUICore
import SDUIFlow
import Testing

@Suite struct ScreenStateMachineTests {
    /// The diagram of seed 002, exactly.
    static let diagram: [ScreenTransition: (ScreenState, ScreenState)] = [
        .initiate: (.start, .fetch), .loadData: (.fetch, .load), .success: (.load, .present),
        .react: (.present, .fetch), .badData: (.fetch, .error), .failure: (.load, .error), .retry: (.error, .fetch),
    ]

    /// A machine brought to `state` along allowed transitions.
    func machine(in state: ScreenState) throws -> ScreenStateMachine {
        let m = ScreenStateMachine()
        let path: [ScreenTransition] = switch state {
        case .start: []
        case .fetch: [.initiate]
        case .load: [.initiate, .loadData]
        case .present: [.initiate, .loadData, .success]
        case .error: [.initiate, .badData]
        }
        for t in path { try m.apply(t) }
        #expect(m.state == state)
        return m
    }

    /// Every (state, transition) pair: the 7 of the diagram move, the 28
    /// others are refused with an error naming the transition and state.
    @Test(arguments: ScreenState.allCases)
    func everyTransitionFrom(_ state: ScreenState) throws {
        for t in ScreenTransition.allCases {
            let m = try machine(in: state)
            let before = m.history
            if Self.diagram[t]!.0 == state {
                #expect(try m.apply(t) == Self.diagram[t]!.1)
                #expect(m.state == Self.diagram[t]!.1)
                #expect(m.history == before + [t])
            } else {
                do {
                    try m.apply(t)
                    Issue.record("\(t) from \(state) was allowed")
                } catch let e as SDUIError {
                    #expect(e.category == .argument)
                    #expect(e.message.contains("\"\(t.rawValue)\" is not allowed from \(state.rawValue)"), "\(e.message)")
                }
                #expect(m.state == state)
                #expect(m.history == before)
            }
        }
    }

    @Test func theTableHasExactlyTheDiagramsSevenEdges() {
        #expect(ScreenTransition.allCases.count == 7)
        for t in ScreenTransition.allCases { #expect(t.edge.from == Self.diagram[t]!.0 && t.edge.to == Self.diagram[t]!.1) }
        #expect(ScreenTransition.allowed(from: .fetch) == [.loadData, .badData])
        #expect(ScreenTransition.allowed(from: .present) == [.react])
    }

    @Test func statesAreObservableInOrder() async throws {
        let m = ScreenStateMachine()
        let states = m.states
        for t: ScreenTransition in [.initiate, .badData, .retry, .loadData, .success] { try m.apply(t) }
        var seen: [ScreenState] = []
        for await s in states {
            seen.append(s)
            if seen.count == 6 { break }
        }
        #expect(seen == [.start, .fetch, .error, .fetch, .load, .present])
    }
}
