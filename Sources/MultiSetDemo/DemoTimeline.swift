import Foundation
import MultiSetSDK
import MultiSetSampleKit

/// What the AR localization screen shows, as text: the demo prints every change of it.
struct DemoScreen: Equatable {
    var overlay: String?
    var card: String?
    var toast: String?
    var alert: String?
    var mesh: String?
    var localize: String
    var sceneMesh: String?

    init(_ vm: ARLocalizationViewModel, scene: RecordingScene) {
        if !scene.mapMeshCodes.isEmpty { sceneMesh = scene.mapMeshesVisible ? "shown" : "hidden" }
        if let o = vm.frameCaptureOverlay {
            overlay = "“\(o.progressText)”"
        } else if let o = vm.serverWaitOverlay {
            overlay = "“\(o.text)”"
        }
        if let c = vm.runStatus.card {
            let mark = c.symbol == .tick ? "✓ " : c.symbol == .redMark ? "✗ " : ""
            card = "“\(mark)\(c.text)”"
        }
        toast = vm.toast.map { "“\($0.message)”" }
        if let a = vm.presentedAlert {
            let message = a.message.isEmpty ? "" : " “\(a.message.replacingOccurrences(of: "\n\n", with: " "))”"
            alert = "“\(a.title)”\(message) [\(a.buttons.map(\.title).joined(separator: " | "))]"
        }
        if let text = vm.meshLoadingText {
            mesh = "“\(text)”"
        } else if let toggle = vm.meshToggleTitle {
            mesh = "toggle “\(toggle)”"
        }
        localize = vm.isLocalizeEnabled ? "enabled" : "disabled"
    }
}

/// One printed line of the demo's timeline.
struct DemoLine: Equatable {
    /// `screen`, `sdk`, `user` or `ar`.
    var kind: String
    /// Virtual seconds since the act started.
    var time: Double
    var text: String

    var rendered: String {
        String(format: "%7.1f  ", time) + kind.padding(toLength: 6, withPad: " ", startingAt: 0) + " " + text
    }
}

/// Collects the timeline of one act and prints it as it goes.
final class DemoTimeline {
    private(set) var lines: [DemoLine] = []
    private var last: DemoScreen?
    private let echo: Bool

    init(echo: Bool) { self.echo = echo }

    func add(_ kind: String, _ time: Double, _ text: String) {
        let line = DemoLine(kind: kind, time: time, text: text)
        lines.append(line)
        if echo { print(line.rendered) }
    }

    /// Prints what changed on screen since the last look (new things only; what disappears is not listed,
    /// except the Localize button's state).
    func observe(_ vm: ARLocalizationViewModel, at time: Double, scene: RecordingScene) {
        let now = DemoScreen(vm, scene: scene)
        defer { last = now }
        var parts: [String] = []
        func changed(_ name: String, _ new: String?, _ old: String?) {
            if let new, new != old { parts.append("\(name) \(new)") }
        }
        changed("overlay", now.overlay, last?.overlay)
        changed("card", now.card, last?.card)
        changed("toast", now.toast, last?.toast)
        changed("alert", now.alert, last?.alert)
        changed("mesh", now.mesh, last?.mesh)
        changed("map mesh", now.sceneMesh, last?.sceneMesh)
        if now.localize != last?.localize { parts.append("Localize \(now.localize)") }
        if !parts.isEmpty { add("screen", time, parts.joined(separator: " · ")) }
    }
}
