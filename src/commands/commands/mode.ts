import { MODES, type Mode } from "../../agent/events";
import {
    type CommandDefinition,
    type CommandPlan,
    type CommandView,
    failure,
    result,
    submit,
} from "../types";

const DESCRIPTIONS: Record<Mode, string> = {
    ask: "read-only tools",
    agent: "edits and commands are reviewed",
    "accept-edits": "edits applied without review; commands still asked",
    plan: "explore, then propose a plan",
};

function setMode(value: string, view: CommandView): CommandPlan {
    if (!MODES.includes(value as Mode)) {
        return failure(`unknown mode "${value}": use ${MODES.join(", ")}`);
    }
    // Print mode's edits are allowed by its flags, never by a line of the prompt.
    if (value === "accept-edits" && !view.chat) {
        return failure("accept-edits is the chat's mode; in print mode use --allow-edits");
    }
    return submit({ type: "set_mode", mode: value as Mode }, () =>
        result(
            value === "accept-edits"
                ? "Mode: accept edits on. Edits are applied without review (Shift+Tab switches)."
                : `Mode: ${value}.`
        )
    );
}

export const modeCommand: CommandDefinition = {
    name: "mode",
    description: "Set the mode of the next requests: ask (read-only), agent, accept-edits, or plan",
    usage: `/mode [${MODES.join("|")}]`,
    maxPositional: 1,
    plan(args, view) {
        const value = args.positional[0];
        if (value) return setMode(value, view);
        if (!view.chat) return failure(`/mode needs one of ${MODES.join(", ")}`);
        return {
            kind: "choose",
            title: "Choose a mode",
            options: MODES.map((m) => ({ id: m, label: m, hint: DESCRIPTIONS[m] })),
            onChoice: (choice) => (choice ? setMode(choice, view) : result("Mode unchanged.")),
        };
    },
};
