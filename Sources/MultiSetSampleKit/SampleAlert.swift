import MultiSetSDK

/// An alert the AR localization screen presents: title, message and buttons (SPEC §16.5).
public struct SampleAlert: Equatable, Sendable {
    /// Which alert.
    public enum Kind: Equatable, Sendable {
        /// `Localization Failed`.
        case failure
        /// `Localization Discarded`.
        case falsePositive
        /// `End localization?`.
        case closeConfirmation
    }

    /// What a button does.
    public enum Action: Equatable, Sendable {
        /// `localize()`.
        case localizeAgain
        /// `resetWorldOrigin()`.
        case resetAndStartOver
        /// Close the alert.
        case dismiss
        /// Clean up and navigate back.
        case end
        /// Close the confirmation.
        case cancel
    }

    /// One button.
    public struct Button: Equatable, Sendable {
        /// Its title.
        public let title: String
        /// What it does.
        public let action: Action
        /// Cancel-style buttons (SwiftUI `.cancel`).
        public let isCancel: Bool
        /// Destructive buttons (SwiftUI `.destructive`).
        public let isDestructive: Bool

        init(_ title: String, _ action: Action, cancel: Bool = false, destructive: Bool = false) {
            self.title = title
            self.action = action
            isCancel = cancel
            isDestructive = destructive
        }
    }

    /// Which alert.
    public let kind: Kind
    /// The title.
    public let title: String
    /// The body.
    public let message: String
    /// The buttons, in order.
    public let buttons: [Button]

    /// `Localization Failed` with a §19.2 message: `Localize Again`, `Dismiss`.
    public static func failure(message: String) -> SampleAlert {
        SampleAlert(
            kind: .failure, title: "Localization Failed", message: message,
            buttons: [Button("Localize Again", .localizeAgain), Button("Dismiss", .dismiss, cancel: true)])
    }

    /// `Localization Discarded`: `Localize Again`, `Reset & Start Over`, `Dismiss`.
    public static func falsePositive(message: String) -> SampleAlert {
        SampleAlert(
            kind: .falsePositive, title: "Localization Discarded", message: message,
            buttons: [
                Button("Localize Again", .localizeAgain),
                Button("Reset & Start Over", .resetAndStartOver, destructive: true),
                Button("Dismiss", .dismiss, cancel: true),
            ])
    }

    /// `End localization?`: `End`, `Cancel`.
    public static let closeConfirmation = SampleAlert(
        kind: .closeConfirmation, title: "End localization?", message: "",
        buttons: [Button("End", .end, destructive: true), Button("Cancel", .cancel, cancel: true)])
}

/// Texts of the false-positive alert (SPEC §16.5).
public enum FalsePositiveText {
    /// Body for `.suspectedAliasing`.
    public static let aliasing =
        "This place looks like another part of the map. Trying again from here will not help; move somewhere more distinctive first."
    /// Body for every other rejection.
    public static let mismatch =
        "The result did not match your tracked position. Walk a few steps to a well-lit, distinctive area and localize again."

    /// The hint appended from the third rejection in a row.
    public static func resetHint(count: Int) -> String {
        "\(count) responses were discarded in a row. If the map itself looks misplaced, choose Reset & Start Over; the next response becomes the new anchor."
    }

    /// The alert body for a rejection: the kind's text, then (from 3 in a row) the reset hint after a blank line.
    public static func message(rejection: RejectionKind, consecutiveCount: Int) -> String {
        let body = rejection == .suspectedAliasing ? aliasing : mismatch
        return consecutiveCount >= 3 ? body + "\n\n" + resetHint(count: consecutiveCount) : body
    }
}

/// The false-positive alert's body for a rejection (the seeds' `falsePositiveText(for: info)`): on
/// `.suspectedAliasing` that localizing again will not help, otherwise to move to a distinctive area,
/// and from the third rejection in a row a pointer to Reset & Start Over.
public func falsePositiveText(for info: FalsePositiveInfo) -> String {
    FalsePositiveText.message(rejection: info.rejection, consecutiveCount: info.consecutiveCount)
}
