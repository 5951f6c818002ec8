import { type CommandDefinition, result } from "../types";

export const vimCommand: CommandDefinition = {
    name: "vim",
    description: "Turn vim keys in the composer on or off (saved as editorMode)",
    usage: "/vim",
    maxPositional: 0,
    plan: (_args, view) =>
        view.chat ? { kind: "toggle_vim" } : result("/vim is for the chat's composer"),
};
