/**
 * Shapes shared by the permission rules (`rules.ts`: Claude Code's
 * `permissions.allow/deny/ask` syntax) and the shell-command judge
 * (`command-judge.ts`: commands parsed into the simple commands they run).
 */

/** The rule lists inside `Bash(...)`, as written: `npm test`, `npm test:*`, `git diff *`. */
export interface CommandRules {
    allow: readonly string[];
    deny: readonly string[];
    ask: readonly string[];
}

/**
 * How the Edit rules judge a path a command writes: the path as written, the
 * directory the command starts in, and how it is written: through a
 * redirection (`> file`) or an argument of a command that writes it (`tee
 * file`, `cp a file`), whose allow rule stands for the edit of an ordinary
 * file in the project.
 */
export type WriteTargetJudge = (
    path: string,
    cwd: string,
    through?: "redirection" | "argument"
) => "allow" | "deny" | "ask" | AskRuleVerdict;

/** An Edit ask rule covers the path: reviewed even under auto-approval, named in the review. */
export interface AskRuleVerdict {
    askRule: string;
}

/**
 * What a deny verdict rests on: an entry of `CommandRules.deny`, exactly as
 * given, or a write the `WriteTargetJudge` denied, with the arguments it got.
 */
export type DeniedBy =
    { type: "command"; pattern: string } | { type: "write"; path: string; cwd: string };

export type CommandVerdict =
    /** Every simple command is allowed by a rule and none is denied. */
    | { decision: "allow"; commands: string[] }
    /**
     * A deny rule matches (or could match, through an expansion) a simple command or a write.
     * `rule` names it for people; `deniedBy` says which, to find the rule without parsing `rule`.
     */
    | { decision: "deny"; reason: string; rule: string; deniedBy: DeniedBy }
    /**
     * Not covered by the allow rules (`uncovered` lists the simple commands that
     * are not), or matched by an ask rule (`forced`: auto-approval does not apply),
     * or not understood by the parser (`reason` says what).
     */
    | { decision: "ask"; reason: string; uncovered: string[]; forced: boolean };
