import { MODES, type Mode } from "../../agent/events";
import type { CommandDefinition } from "../types";

const DESCRIPTIONS: Record<Mode, string> = {
    ask: "read-only tools",
    agent: "edits and commands are reviewed",
    "accept-edits": "edits applied without review; commands still asked",
    plan: "explore, then propose a plan",
};

export const modeCommand: CommandDefinition = {
    name: "mode",
    description: "Set the mode of the next requests: ask (read-only), agent, accept-edits, or plan",
    usage: `/mode [${MODES.join("|")}]`,
    maxPositional: 1,
    async execute(ctx, args) {
        let value = args.positional[0];
        if (!value) {
            if (!ctx.interactive)
                return { message: `/mode needs one of ${MODES.join(", ")}`, isError: true };
            const choice = await ctx.pick(
                "Choose a mode",
                MODES.map((m) => ({ id: m, label: m, hint: DESCRIPTIONS[m] }))
            );
            if (!choice) return { message: "Mode unchanged." };
            value = choice;
        }
        if (!MODES.includes(value as Mode)) {
            return { message: `unknown mode "${value}": use ${MODES.join(", ")}`, isError: true };
        }
        // Print mode's edits are allowed by its flags, never by a line of the prompt.
        if (value === "accept-edits" && !ctx.interactive) {
            return {
                message: "accept-edits is the chat's mode; in print mode use --allow-edits",
                isError: true,
            };
        }
        ctx.setMode(value as Mode);
        return {
            message:
                value === "accept-edits"
                    ? "Mode: accept edits on. Edits are applied without review (Shift+Tab switches)."
                    : `Mode: ${value}.`,
        };
    },
};
