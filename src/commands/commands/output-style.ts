import type { OutputStyleListing } from "../../agent/protocol";
import { type CommandDefinition, type CommandPlan, result, shown, submit } from "../types";

function listing(styles: OutputStyleListing): string {
    const lines = styles.styles.map(
        (s) =>
            `${s.active ? "●" : " "} ${s.name} (${s.source})${s.description ? `: ${s.description}` : ""}`
    );
    if (styles.next) lines.push(`A new conversation takes ${styles.next}.`);
    lines.push(...styles.warnings.map((w) => `warning: ${w}`));
    lines.push("Pick one with /output-style NAME (add --now to apply it to this conversation).");
    return lines.join("\n");
}

const pick = (name: string, now: boolean): CommandPlan =>
    submit({ type: "set_output_style", name, now }, shown);

/** The chat's second question: when the picked style takes effect. */
function when(name: string): CommandPlan {
    return {
        kind: "choose",
        title: `Use ${name} from…`,
        options: [
            {
                id: "next",
                label: "the next conversation",
                hint: "this one keeps its style (/new starts one)",
            },
            {
                id: "now",
                label: "now",
                hint: "the prompt cache starts again: the next request sends the whole prefix",
            },
        ],
        onChoice: (choice) =>
            choice ? pick(name, choice === "now") : result("Output style unchanged."),
    };
}

export const outputStyleCommand: CommandDefinition = {
    name: "output-style",
    description: "Choose the output style (a picker without an argument)",
    usage: "/output-style [name] [--now]",
    maxPositional: 1,
    flags: { now: { takesValue: false } },
    plan(args, view) {
        const name = args.positional[0];
        const now = args.flags.now === true;
        if (name) return pick(name, now);
        return submit({ type: "output_styles" }, (styles) => {
            if (!view.chat) return result(listing(styles));
            return {
                kind: "choose",
                title: "Choose an output style",
                note: styles.next
                    ? `This conversation: ${styles.current}; a new one takes ${styles.next}.`
                    : `This conversation: ${styles.current}.`,
                options: styles.styles.map((s) => ({
                    id: s.name,
                    label: `${s.name}${s.active ? " (current)" : ""}`,
                    hint: [s.source, s.description].filter(Boolean).join(" · "),
                })),
                // Before the first request a pick simply applies; after it, when is a question.
                onChoice: (choice) =>
                    choice
                        ? now || !styles.started
                            ? pick(choice, now)
                            : when(choice)
                        : result("Output style unchanged."),
            };
        });
    },
};
