/**
 * Places where bash evaluates text as arithmetic or re-expands it: `$(( ))`,
 * `(( ))`, `let`, array subscripts, `[[ x -eq y ]]`, `-v NAME`, `${x@P}`,
 * `${!x}`, `declare -i`. An arithmetic operand that names a variable is
 * evaluated in turn, and a subscript in that value (`a[$(cmd)]`) runs its
 * command substitution even when the text came from single quotes, so only
 * numeric literals are vouched for; anything else is a problem (ask).
 */
import type { SyntaxNode } from "./bash-parser";
import { snippet } from "./command-source-checks";
import { type Word, evaluateWord } from "./command-words";

/** Decimal, octal, hex and `base#digits` literals. */
const NUMBER = /(?<![\w@#])(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)(?![\w@#])/g;
const ARITHMETIC_OPERATORS = /^[\s+\-*/%<>=!&|^~?:(),]*$/;

/** Parameters that are always numbers: `$?`, `$#`, `$$`, `$!`, `${#name}` (a length). */
const NUMERIC_PARAMETER = /\$(?:[?#$!]|\{#[A-Za-z_]\w*\})/g;

/** Whether arithmetic text holds only numbers and operators (no names, no expansions). */
function isNumericArithmetic(text: string): boolean {
    return ARITHMETIC_OPERATORS.test(text.replace(NUMERIC_PARAMETER, " 0 ").replace(NUMBER, " "));
}

/** A variable name bash will not evaluate: no subscript, or a numeric, `@` or `*` one. */
function isPlainName(word: Word): boolean {
    if (word.dynamic) return false;
    const match = /^[A-Za-z_]\w*(?:\[(.*)\])?$/.exec(word.value);
    if (!match) return false;
    const index = match[1];
    return index === undefined || index === "@" || index === "*" || isNumericArithmetic(index);
}

const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** `${x@Q}`-style transforms that only quote or change case; `@P` expands the value as a prompt. */
const INERT_TRANSFORMS = new Set(["Q", "E", "A", "a", "U", "u", "L", "K", "k"]);

const evaluated = (node: SyntaxNode, what: string): string =>
    `\`${snippet(node.text)}\` ${what}, which can run commands hidden in a variable's value`;

/** The problem with a node bash evaluates, or null when it holds only literals. */
export function evaluationProblem(node: SyntaxNode): string | null {
    switch (node.type) {
        case "arithmetic_expansion":
        case "c_style_for_statement":
            return arithmeticNodeProblem(node);
        case "compound_statement":
            return node.children[0]?.type === "((" ? arithmeticNodeProblem(node) : null;
        case "subscript": {
            const index = node.namedChildren[1];
            if (!index || ["@", "*"].includes(index.text) || isNumericArithmetic(index.text))
                return null;
            return evaluated(node, "evaluates its subscript as arithmetic");
        }
        case "test_command":
            return testProblem(node, node.children[0]?.type === "[[");
        case "expansion":
            return expansionProblem(node);
        default:
            return null;
    }
}

function arithmeticNodeProblem(node: SyntaxNode): string | null {
    const inner = node.namedChildren.filter(
        (child): child is SyntaxNode => child !== null && child.type !== "do_group"
    );
    if (inner.every((child) => isNumericArithmetic(child.text))) return null;
    return evaluated(node, "evaluates names as arithmetic");
}

function testProblem(node: SyntaxNode, doubleBracket: boolean): string | null {
    for (const child of node.namedChildren) {
        if (!child) continue;
        const operator = child.namedChildren.find((part) => part?.type === "test_operator");
        if (child.type === "unary_expression" && operator?.text === "-v") {
            const operand = child.namedChildren[child.namedChildren.length - 1];
            if (!operand || !isPlainName(evaluateWord(operand)))
                return evaluated(child, "evaluates a subscript in the name it tests");
        }
        // `[[` evaluates the operands of -eq and friends as arithmetic; `[` and `test` only parse numbers.
        if (child.type === "binary_expression" && doubleBracket && operator) {
            if (ARITHMETIC_TESTS.has(operator.text)) {
                const operands = child.namedChildren.filter(
                    (part): part is SyntaxNode => part !== null && part.type !== "test_operator"
                );
                const literal = operands.every((operand) => {
                    const word = evaluateWord(operand);
                    if (!word.dynamic && isNumericArithmetic(word.value)) return true;
                    // `$?`, `${#x}`: always numbers, though only known when it runs.
                    return isNumericArithmetic(operand.text);
                });
                if (!literal) return evaluated(child, "compares its operands as arithmetic");
            }
        }
        const nested = testProblem(child, doubleBracket);
        if (nested) return nested;
    }
    return null;
}

function expansionProblem(node: SyntaxNode): string | null {
    const text = node.text;
    const operators = node.children
        .filter((child): child is SyntaxNode => child !== null && !child.isNamed)
        .map((child) => child.type)
        .slice(1, -1);
    // `${!x}` looks up the variable x names, subscript included; `${!prefix*}` and `${!a[@]}` list names.
    if (operators[0] === "!") {
        if (/^\$\{![A-Za-z_]\w*(?:[*@]|\[[*@]\])\}$/.test(text)) return null;
        return evaluated(node, "expands the variable another variable names");
    }
    if (operators.includes(":=") || operators.includes("=")) {
        return `\`${snippet(text)}\` assigns a variable, which cannot be judged`;
    }
    const at = operators.indexOf("@");
    if (at >= 0 && !INERT_TRANSFORMS.has(operators[at + 1] ?? "")) {
        return evaluated(node, "expands a value again");
    }
    const colon = node.children.findIndex((child) => child?.type === ":");
    if (colon >= 0) {
        const bounds = node.children
            .slice(colon + 1)
            .filter((child): child is SyntaxNode => child !== null && child.isNamed);
        if (!bounds.every((bound) => isNumericArithmetic(bound.text)))
            return evaluated(node, "evaluates its offset as arithmetic");
    }
    return null;
}

/** Options of `read` that take a value (the other operands are variable names). */
const READ_VALUE_OPTIONS = new Set(["-d", "-i", "-n", "-N", "-p", "-t", "-u"]);

/**
 * Builtins that assign to or test a variable named by an argument (`printf -v`,
 * `read`, `wait -p`, `unset`, `test -v`) evaluate a subscript in that name;
 * `let` evaluates every argument as arithmetic.
 */
export function builtinEvaluationProblem(words: readonly Word[], display: string): string | null {
    const name = words[0];
    if (!name || name.dynamic) return null;
    const args = words.slice(1);
    // `exec {fd[$(cmd)]}>f`: a named descriptor's subscript is evaluated.
    if (args.some((word) => /^\{[A-Za-z_]\w*\[.*\]\}$/s.test(word.value))) {
        return `\`${snippet(display)}\` names a file descriptor with a subscript, which bash evaluates`;
    }
    const names: Word[] = [];
    // `-v NAME`, `-vNAME`, and the option last in a group (`-np NAME`).
    const valueAfter = (option: string): void => {
        const letter = option.slice(1);
        args.forEach((word, i) => {
            const grouped = /^-[A-Za-z]+$/.test(word.value) && word.value.endsWith(letter);
            if ((word.value === option || grouped) && args[i + 1]) names.push(args[i + 1]!);
            else if (!word.dynamic && word.value.startsWith(option) && word.value !== option)
                names.push({ value: word.value.slice(option.length), dynamic: false });
        });
    };
    switch (name.value) {
        case "declare":
        case "typeset":
        case "local":
        case "export":
        case "readonly":
            // Reached through `builtin`/`command`, where the parser sees a plain command.
            return args.some((word) => word.dynamic || /^[-+]\w*[in]/.test(word.value)) ||
                !args.every(
                    (word) =>
                        /^[-+]/.test(word.value) ||
                        isPlainName(word) ||
                        /^[A-Za-z_]\w*=/.test(word.value)
                )
                ? `\`${snippet(display)}\` declares variables in a way bash may evaluate`
                : null;
        case "let":
            if (args.every((word) => !word.dynamic && isNumericArithmetic(word.value))) return null;
            return `\`${snippet(display)}\` evaluates its arguments as arithmetic, which can run commands hidden in a variable's value`;
        case "printf":
            valueAfter("-v");
            break;
        case "wait":
            valueAfter("-p");
            break;
        case "test":
        case "[":
            args.forEach((word, i) => {
                if (word.value === "-v") names.push(args[i + 1] ?? { value: "", dynamic: true });
            });
            break;
        case "unset":
            names.push(...args.filter((word) => word.dynamic || !word.value.startsWith("-")));
            break;
        case "read":
            for (let i = 0; i < args.length; i++) {
                const word = args[i]!;
                if (!word.dynamic && READ_VALUE_OPTIONS.has(word.value)) i++;
                else if (!word.dynamic && word.value === "-a" && args[i + 1])
                    names.push(args[++i]!);
                else if (word.dynamic || !word.value.startsWith("-")) names.push(word);
            }
            break;
        default:
            return null;
    }
    if (names.every(isPlainName)) return null;
    return `\`${snippet(display)}\` assigns to a variable name that is not plain, whose subscript bash evaluates`;
}

/**
 * `declare -i` makes later assignments arithmetic and `declare -n` makes a name
 * a reference evaluated on use; names given as words must be plain.
 */
export function declarationProblem(node: SyntaxNode): string | null {
    const keyword = node.children[0]?.type ?? "";
    for (const child of node.namedChildren) {
        if (!child || child.type === "variable_assignment" || child.type === "variable_name")
            continue;
        const word = evaluateWord(child);
        if (!word.dynamic && /^[-+]/.test(word.value)) {
            if (["declare", "typeset", "local"].includes(keyword) && /[in]/.test(word.value))
                return `\`${snippet(node.text)}\` makes a variable an integer or a reference, whose values bash evaluates`;
            continue;
        }
        if (!isPlainName(word))
            return `\`${snippet(node.text)}\` names a variable that is not plain, whose subscript bash evaluates`;
    }
    return null;
}
