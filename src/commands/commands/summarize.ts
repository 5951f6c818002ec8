import { type CommandDefinition, failure, shown, submit } from "../types";

export const summarizeCommand: CommandDefinition = {
    name: "summarize",
    aliases: ["compact"],
    description: "Replace older messages with a summary",
    usage: "/summarize [--keep-last N]",
    maxPositional: 0,
    flags: { "keep-last": { short: "k", takesValue: true } },
    plan(args) {
        const raw = args.flags["keep-last"];
        let keepLast: number | undefined;
        if (raw !== undefined) {
            keepLast = Number(raw);
            if (raw === true || !Number.isInteger(keepLast) || keepLast < 0) {
                return failure(`--keep-last needs a whole number (got "${String(raw)}")`);
            }
        }
        return submit({ type: "summarise", keepLast }, shown);
    },
};
