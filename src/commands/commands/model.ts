import { type CommandDefinition, result, shown, submit } from "../types";

export const modelCommand: CommandDefinition = {
    name: "model",
    description: "Switch model (a picker without an argument)",
    usage: "/model [alias]",
    maxPositional: 1,
    plan(args, view) {
        const name = args.positional[0];
        const switchTo = (alias: string) => submit({ type: "set_model", name: alias }, shown);
        if (name) return switchTo(name);
        const current = view.state.model.id;
        if (!view.chat) return result(`current model: ${current}`);
        return {
            kind: "choose",
            title: "Choose a model",
            options: view.state.models.map((m) => ({
                id: m.alias,
                label: `${m.alias}${m.id === current ? " (current)" : ""}`,
                hint: `${m.display} · ${m.provider}`,
            })),
            onChoice: (choice) => (choice ? switchTo(choice) : result("Model unchanged.")),
        };
    },
};
