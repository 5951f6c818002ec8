import { type CommandDefinition, result, shown, submit } from "../types";

export const conversationsCommand: CommandDefinition = {
    name: "conversations",
    description: "Pick a saved conversation to switch to",
    usage: "/conversations",
    maxPositional: 0,
    plan: (_args, view) =>
        submit({ type: "list_conversations" }, (options) => {
            if (options.length === 0) return result("No saved conversations yet.");
            if (!view.chat) {
                return result(
                    options.map((o) => `${o.label}${o.hint ? `  (${o.hint})` : ""}`).join("\n")
                );
            }
            return {
                kind: "choose",
                title: "Switch to conversation",
                options,
                onChoice: (choice) =>
                    choice
                        ? submit({ type: "resume", id: choice }, shown)
                        : result("Stayed in this conversation."),
            };
        }),
};
