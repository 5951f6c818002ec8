/**
 * What North sends after its system prompt and before the transcript: the
 * project's rules, the user's and project's memory, the learned profile.
 */

/** Text blocks injected ahead of the transcript, in the spec's order. */
export interface ContextBlocks {
    /** `.cursor/rules`, AGENTS.md, CLAUDE.md. Stable for the session. */
    rules?: string;
    /** The learned project profile. Stable for the session. */
    profile?: string;
    /** The user's and the project's memory (`MEMORY.md` and topic files). Changes only when a note is saved. */
    memory?: string;
}

/**
 * The system prompt followed by the stable context blocks (rules, then the
 * project profile). All of it is identical across the requests of a session,
 * so it sits in the cached prefix.
 */
export function systemWithContext(system: string, blocks: ContextBlocks): string {
    const parts = [system];
    if (blocks.rules) parts.push(blocks.rules);
    if (blocks.memory) parts.push(blocks.memory);
    if (blocks.profile) parts.push(`# Project Profile\n\n${blocks.profile}`);
    return parts.join("\n\n");
}

/** The output style of the main conversation, as its system prompt carries it. */
export interface AppliedOutputStyle {
    name: string;
    /** The style's instructions; empty for North's default. */
    prompt: string;
    keepCodingInstructions: boolean;
}

/**
 * The style's instructions, placed after North's own (and any appended
 * prompt): the style wins where they differ. Empty for the default style.
 */
export function outputStyleBlock(style: AppliedOutputStyle | undefined): string | undefined {
    if (!style || style.prompt === "") return undefined;
    return `<output_style name="${style.name}">\nRespond in this output style; where it differs from the guidance above, it wins.\n\n${style.prompt}\n</output_style>`;
}
