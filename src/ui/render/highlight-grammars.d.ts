/** The part of highlight.js North uses (highlight-grammars.js says why it is declared here). */
export interface Grammars {
    getLanguage(name: string): object | undefined;
    /** The result's token tree is read by highlight-engine.ts (`_emitter`, `_top`). */
    highlight(code: string, options: { language: string; ignoreIllegals: boolean }): unknown;
}

export function createGrammars(extraAliases: Record<string, string[]>): Grammars;
