#if canImport(SwiftUI) && canImport(ARKit) && os(iOS)
import MultiSetSDK
import MultiSetSampleKit
import SwiftUI

/// The configuration screen: the account (client id, secret, API root; saved to the Keychain), then
/// every setting of `SettingsViewModel`, grouped, with ranges.
@available(iOS 17.0, *)
public struct SettingsView: View {
    @StateObject private var model: SettingsViewModel
    @Environment(\.dismiss) private var dismiss

    /// The screen over a settings model.
    public init(model: SettingsViewModel) { _model = StateObject(wrappedValue: model) }

    public var body: some View {
        NavigationStack {
            Form {
                Section(SettingsViewModel.AccountText.title) {
                    TextField(SettingsViewModel.AccountText.clientId, text: $model.credentials.clientId)
                        .textInputAutocapitalization(.never).autocorrectionDisabled()
                    SecureField(SettingsViewModel.AccountText.clientSecret, text: $model.credentials.clientSecret)
                    TextField(SettingsViewModel.AccountText.baseURL, text: $model.credentials.baseURL)
                        .keyboardType(.URL).textInputAutocapitalization(.never).autocorrectionDisabled()
                }
                ForEach(model.sections, id: \.title) { section in
                    Section(section.title) {
                        ForEach(section.fields, id: \.id) { field in row(field) }
                    }
                }
                if !model.validationMessages.isEmpty {
                    Section("Adjusted") { ForEach(model.validationMessages, id: \.self) { Text($0).font(.caption) } }
                }
            }
            .navigationTitle(SettingsViewModel.Text.title)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button(SettingsViewModel.Text.cancel) { model.cancel() }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button(SettingsViewModel.Text.save) { model.save() }
                }
                ToolbarItem(placement: .bottomBar) {
                    Button(SettingsViewModel.Text.reset, role: .destructive) { model.reset() }
                }
            }
            .onChange(of: model.isPresented) { _, presented in if !presented { dismiss() } }
        }
    }

    @ViewBuilder private func row(_ field: SettingsField) -> some View {
        switch (field.kind, model.value(of: field)) {
        case (.toggle, .bool(let on)):
            Toggle(field.label, isOn: Binding(get: { on }, set: { model.set(field, to: .bool($0)) }))
        case (.integer, .int(let value)):
            LabeledContent(field.label + (field.rangeText.map { " (\($0))" } ?? "")) {
                TextField(
                    field.label, value: Binding(get: { value }, set: { model.set(field, to: .int($0)) }),
                    format: .number
                )
                .keyboardType(.numberPad).multilineTextAlignment(.trailing)
            }
        case (.decimal, .number(let value)):
            LabeledContent(field.label + (field.rangeText.map { " (\($0))" } ?? "")) {
                TextField(
                    field.label, value: Binding(get: { value }, set: { model.set(field, to: .number($0)) }),
                    format: .number
                )
                .keyboardType(.decimalPad).multilineTextAlignment(.trailing)
            }
        case (.choice(let options), .text(let selected)):
            Picker(field.label, selection: Binding(get: { selected }, set: { model.set(field, to: .text($0)) })) {
                ForEach(options, id: \.self) { Text($0).tag($0) }
            }
        case (_, .text(let text)):
            TextField(field.label, text: Binding(get: { text }, set: { model.set(field, to: .text($0)) }))
                .textInputAutocapitalization(.never).autocorrectionDisabled()
        default:
            EmptyView()
        }
    }
}
#endif
