/**
 * The output style the host's conversations use: the `outputStyle` setting
 * at start, then the user's pick (`set_output_style`). A conversation takes
 * the selection at its first request and keeps it (the cached prefix stays
 * byte-identical); a pick applies from the next conversation, or "now"
 * (the current one's prompt changes, so the prompt cache starts again).
 */
import {
    type ChosenOutputStyle,
    DEFAULT_OUTPUT_STYLE,
    type OutputStyle,
    type OutputStyleDiscovery,
    chooseOutputStyle,
} from "../../project/output-styles";
import type { AppliedOutputStyle } from "../prompt-blocks";
import type { OpReplies, Outcome } from "../protocol";
import type { AgentSession } from "../session";

export interface OutputStyleSelectionDeps {
    /** Every style available now (built-ins, the user's, a trusted project's, enabled plugins'). */
    discover(): OutputStyleDiscovery;
    /** The `outputStyle` setting (user < project < local) at start. */
    setting?: string;
    /** Keeps a pick as the personal setting of this project; the error says why it holds for this run only. */
    save(name: string): { ok: true; path: string } | { ok: false; error: string };
    /** A notice for the user (a saved style that is not available). */
    warn(message: string): void;
}

function applied(style: OutputStyle): AppliedOutputStyle | undefined {
    if (style.name === DEFAULT_OUTPUT_STYLE) return undefined;
    return {
        name: style.name,
        prompt: style.prompt,
        keepCodingInstructions: style.keepCodingInstructions,
    };
}

export class OutputStyleSelection {
    private selected: string | undefined;
    private found: OutputStyleDiscovery | null = null;
    /** Notices already given: a missing style is said once, not at every /new. */
    private readonly told = new Set<string>();

    constructor(private readonly deps: OutputStyleSelectionDeps) {
        this.selected = deps.setting;
    }

    private styles(refresh = false, tell = true): OutputStyleDiscovery {
        if (refresh || !this.found) this.found = this.deps.discover();
        if (tell) for (const warning of this.found.warnings) this.tell(warning);
        return this.found;
    }

    private tell(message: string): void {
        if (this.told.has(message)) return;
        this.told.add(message);
        this.deps.warn(message);
    }

    private choose(): ChosenOutputStyle {
        return chooseOutputStyle(this.styles().styles, this.selected);
    }

    /**
     * The style a conversation uses (undefined: North's default), looked for
     * again each time (plugins may have loaded or changed since). `final`:
     * the conversation keeps it (its first request), so a missing style is
     * said now; an estimate before that says nothing.
     */
    forConversation(final = true): AppliedOutputStyle | undefined {
        const chosen = chooseOutputStyle(this.styles(true, final).styles, this.selected);
        if (chosen.notice && final) this.tell(chosen.notice);
        return applied(chosen.style);
    }

    /** The `output_styles` reply: every style, the current conversation's, and the next one's. */
    listing(session: AgentSession): OpReplies["output_styles"] {
        const { styles, warnings } = this.styles(true);
        const current = session.outputStyleName ?? DEFAULT_OUTPUT_STYLE;
        const next = this.choose().style.name;
        return {
            styles: styles.map((s) => ({
                name: s.name,
                description: s.description,
                source: s.plugin ? `plugin ${s.plugin}` : s.source,
                active: s.name === current,
            })),
            current,
            ...(next !== current ? { next } : {}),
            started: session.outputStyleFixed,
            warnings,
        };
    }

    /** Selects `name` for the next conversations (saved), and for this one too when `now`. */
    set(session: AgentSession, name: string, now: boolean): Outcome {
        const { styles } = this.styles(true);
        const style =
            styles.find((s) => s.name === name) ??
            styles.find((s) => s.name.toLowerCase() === name.toLowerCase());
        if (!style) {
            return {
                message: `no output style "${name}"; /output-style lists them`,
                isError: true,
            };
        }
        this.selected = style.name;
        const saved = this.deps.save(style.name);
        const where = saved.ok
            ? `Saved in ${saved.path}.`
            : `Not saved (${saved.error}): it holds until North exits.`;
        const chosen = this.choose();
        if (chosen.style.name !== style.name) {
            return { message: `${chosen.notice ?? "another style applies"}. ${where}` };
        }
        const current = session.outputStyleName ?? DEFAULT_OUTPUT_STYLE;
        if (!session.outputStyleFixed) {
            return { message: `Output style ${style.name} from the first request on. ${where}` };
        }
        if (now) {
            if (current === style.name) {
                return { message: `Output style ${style.name} is already in use. ${where}` };
            }
            session.setOutputStyle(applied(style));
            return {
                message: `Output style ${style.name} from now on. The system prompt changed, so the prompt cache starts again: the next request sends the whole prefix. ${where}`,
            };
        }
        return {
            message: `Output style ${style.name} from the next conversation (/new)${current === style.name ? "" : `; this one keeps ${current}`}. ${where}`,
        };
    }
}
