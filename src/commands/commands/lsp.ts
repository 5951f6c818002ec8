import { listingText } from "../language-servers";
import { type CommandDefinition, result, submit } from "../types";

export const lspCommand: CommandDefinition = {
    name: "lsp",
    description: "List language servers, their state, memory and last error",
    usage: "/lsp",
    maxPositional: 0,
    plan: () => submit({ type: "lsp_servers" }, (listing) => result(listingText(listing))),
};
