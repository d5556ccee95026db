/*
 * A prototype of JSON's is_valid in which no pass walks the positions one by one: the kinds of
 * the tokens are checked in pairs, 64 at a time, and only the brackets go through a scalar loop.
 * It is written for grammars/json.abnf (the tables below are JSON's, and its escape handling
 * knows JSON's \u), to measure the design before the generator emits it; see
 * docs/benchmarks.md, "Token bigrams".
 *
 * Build: compile the generated validator with `abnfc compile grammars/json.abnf --lang c
 * --prefix json_validator`, then this file beside it (it includes json_validator.c for stage 1's
 * internal functions: the UTF-8 window test, the quote and escape scans), with -march set to a
 * processor with AVX-512 VBMI2 (vpcompressb).
 *
 * Per chunk of 64 blocks of 64 bytes:
 *
 *   Pass A, per block: the unescaped quotes, the strings' insides by prefix XOR, each string
 *   byte checked (no control byte, quote or backslash but in a valid escape), UTF-8 by the
 *   generated window test.  Outside strings: the positions (structural bytes, opening quotes and
 *   the first byte of each other token) with their kinds, the brackets, and the bytes of the
 *   other tokens (numbers, literals) with each token's first byte marked, each compressed with
 *   vpcompressb into its own dense array.
 *
 *   Pass N: the tokens' bytes, 64 at a time.  Each byte against the byte before it (a sign only
 *   after an exponent's e, a point only after a digit, no letter next to a number's byte, no
 *   digit after a leading zero); a token's end (the next token's first byte, or a sentinel after
 *   the last) a digit or a whole literal, matched backward from its last letter; a second point
 *   or e in a number, or a point after its e, found by one addition per mask: adding a run's
 *   marks to the run clears its bits from its first mark on, except later marks, which stay set.
 *   With -DTOKEN_AUTOMATON, pass N is instead the token automaton derived from the grammar by
 *   bench/prototypes/derive_token_automaton.py (token_automaton.h), one table load a byte.
 *
 * With -DDERIVED_PAIRS, passes A, B and C take the tables bench/prototypes/derive_position_pairs.py
 * derives from the grammar (position_pairs.h) in place of JSON's: the byte classes and kinds (each
 * structural byte its own kind), a stack of contexts (the machines the brackets entered), and
 * the pairs of kinds each context allows, a kind refined first by the kind before it where the
 * automaton needs that (a string in an object: a key after { or a comma, a value after a colon).
 * A closing bracket that does not fit is then a pair the table refuses, not a stack check.
 *
 *   Pass B: the bracket stack, a scalar loop over the chunk's brackets without branches: each
 *   closing bracket against the top, and the context after each bracket (object, array, the top
 *   level).  Depth is bounded as in the generated validator.
 *
 *   Pass C: the positions' kinds, 64 at a time, each pair (previous kind, kind) looked up in a
 *   table of the contexts it is allowed in, with each position's context spread from the
 *   brackets' by a carry-less multiply; and each string followed by a colon exactly where a key
 *   is expected (after an opening brace or an object's comma).
 */
#include "json_validator.c"

#include <immintrin.h>

#define G_(name) json_validator_##name

bool bigrams_is_valid(const uint8_t *data, size_t len);

/* Kinds of positions (3 bits), then the bits of the byte classes in the same table. */
enum { K_BAD = 0, K_OPEN = 1, K_CLOSE = 2, K_COLON = 3, K_COMMA = 4, K_STR = 5, K_SCALAR = 6, K_START = 7 };
#ifdef DERIVED_PAIRS
#include "position_pairs.h"
/* The derived classes (bench/prototypes/derive_position_pairs.py): the kind in bits 0-3. */
#define KIND_MASK 15
#define C_WS 0x10
#define C_ST 0x20
#define C_BR 0x40
#define C_SS 0x80
#else
#define KIND_MASK 7
#define C_WS 0x08 /* whitespace */
#define C_ST 0x10 /* structural: { } [ ] : , */
#define C_BR 0x20 /* a bracket */
#define C_Q 0x40  /* a quote */
#define C_SS 0x80 /* not a string's plain byte: control, quote, backslash */
#endif
/* Contexts, as bits of the pair table's entries; then what the entry says of the later kind. */
#define X_OBJ 1
#define X_ARR 2
#define X_TOP 4
#define E_KEY 8     /* a string where an object expects a key */
#define E_STR 16    /* the later kind is a string */
#define E_COLON 32  /* the later kind is a colon */
/* Codes of the bytes of numbers and literals. */
enum { N_OTHER = 0, N_D19 = 1, N_ZERO = 2, N_MINUS = 3, N_PLUS = 4, N_DOT = 5, N_E = 6, N_TFN = 7, N_LET = 8 };

#define BLOCKS 64 /* blocks per chunk: every dense array stays in the L1 cache */
#define HISTORY 8 /* token bytes kept from the chunk before, for the look back */
#define FIRST 0x80 /* marks a token's first byte in the dense array */

#ifndef DERIVED_PAIRS
static uint8_t classes[128], pairs[64], ends[8];
#endif
static uint8_t codes[128];

static void init_tables(void)
{
    int b;
#ifndef DERIVED_PAIRS
    static const int starts[3] = { K_OPEN, K_STR, K_SCALAR }, finals[3] = { K_CLOSE, K_STR, K_SCALAR };
    int i;
    classes['{'] = classes['['] = K_OPEN | C_ST | C_BR;
    classes['}'] = classes[']'] = K_CLOSE | C_ST | C_BR;
    classes[':'] = K_COLON | C_ST;
    classes[','] = K_COMMA | C_ST;
    classes['"'] = K_STR | C_Q | C_SS;
    classes['\\'] = C_SS;
    for (b = 0; b < 0x20; b++)
        classes[b] = C_SS;
    classes[' '] = C_WS;
    classes['\t'] = classes['\n'] = classes['\r'] = C_WS | C_SS;
    for (b = '0'; b <= '9'; b++)
        classes[b] = K_SCALAR;
    classes['-'] = classes['t'] = classes['f'] = classes['n'] = K_SCALAR;
    for (i = 0; i < 3; i++) {
        pairs[K_START * 8 + starts[i]] |= X_TOP;
        pairs[K_COLON * 8 + starts[i]] |= X_OBJ;
        pairs[finals[i] * 8 + K_COMMA] |= X_OBJ | X_ARR;
        pairs[finals[i] * 8 + K_CLOSE] |= X_OBJ | X_ARR;
        ends[finals[i]] = 1;
    }
    pairs[K_OPEN * 8 + K_CLOSE] |= X_OBJ | X_ARR;
    pairs[K_OPEN * 8 + K_STR] |= X_OBJ | X_ARR | E_KEY;
    pairs[K_OPEN * 8 + K_OPEN] |= X_ARR;
    pairs[K_OPEN * 8 + K_SCALAR] |= X_ARR;
    pairs[K_STR * 8 + K_COLON] |= X_OBJ;
    pairs[K_COMMA * 8 + K_STR] |= X_OBJ | X_ARR | E_KEY;
    pairs[K_COMMA * 8 + K_OPEN] |= X_ARR;
    pairs[K_COMMA * 8 + K_SCALAR] |= X_ARR;
    for (i = 0; i < 64; i++) {
        if ((i & 7) == K_STR)
            pairs[i] |= E_STR;
        if ((i & 7) == K_COLON)
            pairs[i] |= E_COLON;
    }
#endif
    for (b = '1'; b <= '9'; b++)
        codes[b] = N_D19;
    codes['0'] = N_ZERO;
    codes['-'] = N_MINUS;
    codes['+'] = N_PLUS;
    codes['.'] = N_DOT;
    codes['e'] = codes['E'] = N_E;
    codes['t'] = codes['f'] = codes['n'] = N_TFN;
    codes['r'] = codes['u'] = codes['a'] = codes['l'] = codes['s'] = N_LET;
}

/* GCC rebuilds broadcast constants inside loops unless their value is hidden from it. */
#define HIDE(v) __asm__("" : "+v"(v))

static inline uint64_t prefix_xor(uint64_t bits)
{
    return G_(prefix_xor_clmul_)(bits);
}

static inline uint64_t equal(__m512i v, int byte)
{
    return _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8((char)byte));
}

static inline uint64_t is_hex(unsigned byte)
{
    return (byte - '0' < 10u) | ((byte | 0x20u) - 'a' < 6u);
}

/* What the passes carry from one block, group or chunk to the next. */
typedef struct {
    G_(carry_) scan;            /* the generated stage 1's: escapes, strings, UTF-8 */
    __m512i utf8_prev, utf8_error;
    uint64_t scalar;            /* 1: the last byte was a token's (not a string's) */
    uint64_t dot, exponent;     /* 1: the number going on has had its point, its e */
    uint64_t object, top;       /* the context after the last bracket */
    uint64_t key_string, key_expected; /* the last position: a string, one where a key goes */
    unsigned kind;              /* the last position's kind */
    unsigned refined;           /* with DERIVED_PAIRS: the last position's kind, refined */
    size_t depth;
    uint64_t bad;
} state;

#ifndef TOKEN_AUTOMATON
/* Pass N over the token bytes t[0..count); t[-HISTORY..-1] are the ones before. */
static uint64_t check_tokens(const uint8_t *t, size_t count, state *s, __m512i lo, __m512i hi)
{
    uint64_t bad = 0;
    size_t j;
    for (j = 0; j < count; j += 64) {
        size_t n = count - j < 64 ? count - j : 64;
        uint64_t lanes = _bzhi_u64(~(uint64_t)0, (unsigned)n);
        __m512i v0 = _mm512_loadu_si512(t + j), v1 = _mm512_loadu_si512(t + j - 1);
        __m512i v2 = _mm512_loadu_si512(t + j - 2);
        uint64_t first = _mm512_movepi8_mask(v0) & lanes, first1 = _mm512_movepi8_mask(v1);
        uint64_t first2 = _mm512_movepi8_mask(v2);
        __m512i c0 = _mm512_permutex2var_epi8(lo, v0, hi), c1 = _mm512_permutex2var_epi8(lo, v1, hi);
        __m512i c2 = _mm512_permutex2var_epi8(lo, v2, hi);
        uint64_t digit = equal(c0, N_D19) | equal(c0, N_ZERO), minus = equal(c0, N_MINUS);
        uint64_t plus = equal(c0, N_PLUS), dot = equal(c0, N_DOT), e = equal(c0, N_E);
        uint64_t tfn = equal(c0, N_TFN), letter = equal(c0, N_LET) | tfn, other = equal(c0, N_OTHER);
        uint64_t digit1 = equal(c1, N_D19) | equal(c1, N_ZERO), zero1 = equal(c1, N_ZERO);
        uint64_t minus1 = equal(c1, N_MINUS), plus1 = equal(c1, N_PLUS), dot1 = equal(c1, N_DOT);
        uint64_t e1 = equal(c1, N_E), letter1 = equal(c1, N_LET) | equal(c1, N_TFN);
        uint64_t letter2 = equal(c2, N_LET) | equal(c2, N_TFN), minus2 = equal(c2, N_MINUS);
        uint64_t inner = lanes & ~first; /* the byte before is the same token's */
        uint64_t literal_e1 = e1 & letter2 & ~first1, exponent1 = e1 & ~literal_e1;
        uint64_t b = other & lanes;
        b |= first & ~(digit | minus | tfn);
        b |= inner & (minus | plus) & ~exponent1;
        b |= inner & dot & ~digit1;
        b |= inner & e & ~digit1 & ~letter1;
        b |= inner & digit & ~(digit1 | minus1 | plus1 | dot1 | exponent1);
        b |= inner & letter & ~letter1;
        b |= inner & literal_e1;
        b |= inner & digit & zero1 & (first1 | (minus2 & first2 & ~first1));
        {
            __m512i v3 = _mm512_loadu_si512(t + j - 3), v4 = _mm512_loadu_si512(t + j - 4);
            __m512i v5 = _mm512_loadu_si512(t + j - 5);
            uint64_t literal_end = letter1 | literal_e1;
            uint64_t is_true = equal(v4, 't' | FIRST) & equal(v3, 'r') & equal(v2, 'u') & equal(v1, 'e');
            uint64_t is_null = equal(v4, 'n' | FIRST) & equal(v3, 'u') & equal(v2, 'l') & equal(v1, 'l');
            uint64_t is_false = equal(v5, 'f' | FIRST) & equal(v4, 'a') & equal(v3, 'l') & equal(v2, 's') &
                                equal(v1, 'e');
            uint64_t end_ok = (digit1 & ~literal_end) | (literal_end & (is_true | is_null | is_false));
            b |= first & ~end_ok;
        }
        {
            uint64_t dots = dot & inner, exponents = e & inner & digit1;
            unsigned long long with_dots, with_exponents;
            uint64_t from_dot, from_exponent;
            (void)_addcarry_u64((unsigned char)s->dot, inner, dots, &with_dots);
            (void)_addcarry_u64((unsigned char)s->exponent, inner, exponents, &with_exponents);
            from_dot = inner & (~with_dots | dots);
            from_exponent = inner & (~with_exponents | exponents);
            b |= dots & (with_dots | from_exponent);
            b |= exponents & with_exponents;
            s->dot = (from_dot >> (n - 1)) & 1u;
            s->exponent = (from_exponent >> (n - 1)) & 1u;
        }
        bad |= b & lanes;
    }
    return bad;
}
#endif

#ifdef TOKEN_AUTOMATON
#include "token_automaton.h"

/*
 * Pass N by the token automaton that bench/prototypes/derive_token_automaton.py derives from the
 * pushdown automaton's token states, in place of JSON's rules above: one table load per byte,
 * the token's first bytes (bit 7) checking that the token before is whole.  The chunk's token
 * bytes are cut into STREAMS parts at tokens' first bytes and stepped in turn, so that the loads
 * of the parts overlap.
 */
#define STREAMS 8 /* the loop below is written out for 8 */

static uint64_t check_tokens_by_automaton(const uint8_t *t, size_t count, uint8_t *going_on)
{
    size_t cut[STREAMS + 1], i, k, common = count;
    unsigned st[STREAMS];
    uint64_t bad = 0;
    cut[0] = 0;
    cut[STREAMS] = count;
    for (i = 1; i < STREAMS; i++) {
        size_t at = count * i / STREAMS;
        at = at < cut[i - 1] ? cut[i - 1] : at;
        while (at < count && !(t[at] & FIRST))
            at++;
        cut[i] = at;
    }
    st[0] = *going_on;
    for (i = 1; i < STREAMS; i++)
        st[i] = 1; /* FIN: as if a whole token came before */
    for (i = 0; i < STREAMS; i++)
        common = cut[i + 1] - cut[i] < common ? cut[i + 1] - cut[i] : common;
    {
        /* written out, so that the parts' states stay in registers */
        unsigned s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3], s4 = st[4], s5 = st[5], s6 = st[6], s7 = st[7];
        const uint8_t *t0 = t + cut[0], *t1 = t + cut[1], *t2 = t + cut[2], *t3 = t + cut[3];
        const uint8_t *t4 = t + cut[4], *t5 = t + cut[5], *t6 = t + cut[6], *t7 = t + cut[7];
        for (k = 0; k < common; k++) {
            s0 = tok_table[(unsigned)t0[k] << 5 | s0];
            s1 = tok_table[(unsigned)t1[k] << 5 | s1];
            s2 = tok_table[(unsigned)t2[k] << 5 | s2];
            s3 = tok_table[(unsigned)t3[k] << 5 | s3];
            s4 = tok_table[(unsigned)t4[k] << 5 | s4];
            s5 = tok_table[(unsigned)t5[k] << 5 | s5];
            s6 = tok_table[(unsigned)t6[k] << 5 | s6];
            s7 = tok_table[(unsigned)t7[k] << 5 | s7];
        }
        st[0] = s0, st[1] = s1, st[2] = s2, st[3] = s3, st[4] = s4, st[5] = s5, st[6] = s6, st[7] = s7;
    }
    for (i = 0; i < STREAMS; i++) {
        for (k = cut[i] + common; k < cut[i + 1]; k++)
            st[i] = tok_table[(unsigned)t[k] << 5 | st[i]];
        bad |= (uint64_t)(st[i] == 0);
        if (i + 1 < STREAMS && cut[i + 1] < count) /* the next part starts a token: this one's last is whole */
            bad |= (uint64_t)(tok_complete[st[i]] ^ 1u);
    }
    for (i = STREAMS; i-- > 0;)
        if (cut[i + 1] > cut[i]) {
            *going_on = (uint8_t)st[i];
            break;
        }
    return bad;
}
#endif

/* One bracket's step of the depth, bounded as in the generated validator. */
static inline size_t next_depth(size_t depth, unsigned opens, uint64_t *bad)
{
    depth = opens ? depth + 1 : depth - (depth != 0);
    *bad |= (uint64_t)(depth > JSON_VALIDATOR_MAX_DEPTH);
    return depth > JSON_VALIDATOR_MAX_DEPTH ? JSON_VALIDATOR_MAX_DEPTH : depth;
}

/*
 * The contexts of 64 positions (bits 0 and 1 of the context after each bracket, from pass B's
 * after[*used..]): each position's is the one after the last bracket before it, so the changes
 * from bracket to bracket are put at the brackets (pdep) and their prefix XOR taken.  state's
 * object and top fields carry the two bits from group to group.
 */
static inline void spread_contexts(const uint8_t *after, size_t *used, uint64_t brackets, state *s, uint64_t *ctx0,
                                   uint64_t *ctx1)
{
    unsigned count = (unsigned)__builtin_popcountll(brackets);
    __m512i contexts = _mm512_loadu_si512(after + *used);
    uint64_t bounded = _bzhi_u64(~(uint64_t)0, count), before_first = (brackets - 1) & ~brackets;
    uint64_t bit0 = _mm512_test_epi8_mask(contexts, _mm512_set1_epi8(1)) & bounded;
    uint64_t bit1 = _mm512_test_epi8_mask(contexts, _mm512_set1_epi8(2)) & bounded;
    uint64_t after0 = prefix_xor(_pdep_u64(bit0 ^ (bit0 << 1), brackets)) ^ (before_first & (0 - s->object));
    uint64_t after1 = prefix_xor(_pdep_u64(bit1 ^ (bit1 << 1), brackets)) ^ (before_first & (0 - s->top));
    *ctx0 = (after0 << 1) | s->object;
    *ctx1 = (after1 << 1) | s->top;
    *used += count;
    s->object = count ? (bit0 >> (count - 1)) & 1u : s->object;
    s->top = count ? (bit1 >> (count - 1)) & 1u : s->top;
}

#ifndef DERIVED_PAIRS
/* Pass B over the chunk's brackets: after[j] is the context after bracket j (0 array, 1 object, 2 top). */
static void check_brackets(const uint8_t *brackets, size_t count, uint8_t *after, uint8_t *stack, state *s)
{
    size_t depth = s->depth, j;
    uint64_t bad = 0;
    for (j = 0; j < count; j++) {
        unsigned opens = (brackets[j] >> 1) & 1u, object = (brackets[j] >> 5) & 1u; /* [ 5B { 7B ] 5D } 7D */
        bad |= (uint64_t)((opens ^ 1u) & (stack[depth] != object));
        stack[depth + 1] = (uint8_t)object;
        depth = next_depth(depth, opens, &bad);
        after[j] = stack[depth];
    }
    s->depth = depth;
    s->bad |= bad;
}

/* Pass C over the chunk's kinds k[0..count) (k[-1]: the one before), brackets' contexts after[]. */
static void check_pairs(const uint8_t *k, size_t count, const uint8_t *after, state *s, __m512i table)
{
    const __m512i seven = _mm512_set1_epi8(7), bracket = _mm512_set1_epi8(C_BR);
    size_t j, used = 0;
    for (j = 0; j < count; j += 64) {
        size_t n = count - j < 64 ? count - j : 64;
        uint64_t lanes = _bzhi_u64(~(uint64_t)0, (unsigned)n);
        __m512i raw = _mm512_loadu_si512(k + j);
        __m512i kind = _mm512_and_si512(raw, seven);
        __m512i before = _mm512_and_si512(_mm512_loadu_si512(k + j - 1), seven);
        __m512i entry = _mm512_permutexvar_epi8(_mm512_or_si512(_mm512_slli_epi16(before, 3), kind), table);
        uint64_t in_object, at_top, in_array;
        spread_contexts(after, &used, _mm512_test_epi8_mask(raw, bracket) & lanes, s, &in_object, &at_top);
        in_array = ~(in_object | at_top);
        uint64_t allowed = (in_object & _mm512_test_epi8_mask(entry, _mm512_set1_epi8(X_OBJ))) |
                           (in_array & _mm512_test_epi8_mask(entry, _mm512_set1_epi8(X_ARR))) |
                           (at_top & _mm512_test_epi8_mask(entry, _mm512_set1_epi8(X_TOP)));
        uint64_t key = _mm512_test_epi8_mask(entry, _mm512_set1_epi8(E_KEY)) & in_object & lanes;
        uint64_t string = _mm512_test_epi8_mask(entry, _mm512_set1_epi8(E_STR)) & lanes;
        uint64_t colon = _mm512_test_epi8_mask(entry, _mm512_set1_epi8(E_COLON)) & lanes;
        s->bad |= lanes & ~allowed;
        /* A string is a key exactly where the next position is a colon. */
        s->bad |= ((string << 1) | s->key_string) & lanes & (colon ^ ((key << 1) | s->key_expected));
        s->key_string = (string >> (n - 1)) & 1u;
        s->key_expected = (key >> (n - 1)) & 1u;
    }
    if (count != 0)
        s->kind = k[count - 1] & 7u;
}

#endif

#ifdef DERIVED_PAIRS
/* Pass B with the derived tables: a stack of contexts (the machines the brackets entered, 0 the
 * start rule's); whether a closing bracket fits is pass C's (the pair before it, in its context). */
static void check_brackets_derived(const uint8_t *brackets, size_t count, uint8_t *after, uint8_t *stack, state *s)
{
    size_t depth = s->depth, j;
    uint64_t bad = 0;
    for (j = 0; j < count; j++) {
        unsigned code = pair_brackets[brackets[j]], opens = code & 1u;
        stack[depth + 1] = (uint8_t)(code >> 1);
        depth = next_depth(depth, opens, &bad);
        after[j] = stack[depth];
    }
    s->depth = depth;
    s->bad |= bad;
}

/* Pass C with the derived tables: each kind refined by the kind before it where the table says
 * so, then each pair (refined kind before, kind) checked in the position's context. */
static void check_pairs_derived(const uint8_t *k, size_t count, const uint8_t *after, state *s, __m512i ok_lo,
                                __m512i ok_hi, __m512i tag_lo, __m512i tag_hi, __m512i refine)
{
    const __m512i mask = _mm512_set1_epi8(KIND_MASK), bracket = _mm512_set1_epi8(C_BR);
    const __m512i stride = _mm512_set1_epi16(PAIR_KINDS);
    const __m512i back = _mm512_set_epi8(62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44,
                                         43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25,
                                         24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
                                         3, 2, 1, 0, 0);
    size_t j, used = 0;
    for (j = 0; j < count; j += 64) {
        size_t n = count - j < 64 ? count - j : 64;
        uint64_t lanes = _bzhi_u64(~(uint64_t)0, (unsigned)n);
        __m512i raw = _mm512_loadu_si512(k + j);
        __m512i kind = _mm512_and_si512(raw, mask);
        __m512i before = _mm512_and_si512(_mm512_loadu_si512(k + j - 1), mask);
        uint64_t ctx0, ctx1;
        __m512i context;
        spread_contexts(after, &used, _mm512_test_epi8_mask(raw, bracket) & lanes, s, &ctx0, &ctx1);
        context = _mm512_mask_mov_epi8(_mm512_set1_epi8(1), ctx0 & ~ctx1, _mm512_set1_epi8(2));
        context = _mm512_mask_mov_epi8(context, ctx1 & ~ctx0, _mm512_set1_epi8(4));
        context = _mm512_mask_mov_epi8(context, ctx1 & ctx0, _mm512_set1_epi8(8));
        {
            __m512i index = _mm512_add_epi8(_mm512_mullo_epi16(before, stride), kind);
            uint64_t tagged = _mm512_test_epi8_mask(_mm512_permutex2var_epi8(tag_lo, index, tag_hi), context) & lanes;
            __m512i refined = _mm512_mask_permutexvar_epi8(kind, tagged, kind, refine);
            __m512i refined_before = _mm512_mask_permutexvar_epi8(_mm512_set1_epi8((char)s->refined), ~(uint64_t)1,
                                                                  back, refined);
            __m512i pair = _mm512_add_epi8(_mm512_mullo_epi16(refined_before, stride), kind);
            uint64_t allowed = _mm512_test_epi8_mask(_mm512_permutex2var_epi8(ok_lo, pair, ok_hi), context);
            uint8_t last[64];
            s->bad |= lanes & ~allowed;
            _mm512_storeu_si512(last, refined);
            s->refined = last[n - 1];
        }
    }
    if (count != 0)
        s->kind = k[count - 1] & KIND_MASK;
}
#endif

/* The escapes of one block in string bytes: the ones the generated scan leaves to stage 2 too. */
static uint64_t escapes(const uint8_t *block, size_t readable, G_(masks_) *m, state *s, uint64_t *quote,
                        uint64_t plain)
{
    uint64_t escaped;
    *quote = G_(quotes_)(m, &s->scan, &escaped);
    if (escaped != 0) {
        G_(escape_sets_avx512_)(block, m);
        plain &= ~G_(escape_sequences_)(m, escaped);
        if (escaped & 1u) { /* the escape was the last byte of the block before */
            uint64_t hex4 = m->esc[2] & (m->esc[2] >> 1) & (m->esc[2] >> 2) & (m->esc[2] >> 3);
            if (m->esc[0] & 1u)
                plain &= ~(uint64_t)1;
            else if (m->esc[1] & (hex4 >> 1) & 1u)
                plain &= ~(uint64_t)0x1F;
            else
                s->bad |= 1;
        }
        {
            /* \uXXXX whose digits run into the next block, or past the input's end */
            uint64_t late = escaped & m->esc[1] & ((uint64_t)0x1F << 59);
            while (late != 0) {
                unsigned at = (unsigned)__builtin_ctzll(late), i;
                uint64_t ok = 1;
                late &= late - 1;
                for (i = 1; i <= 4; i++)
                    ok &= at + i < readable ? is_hex(block[at + i]) : 0;
                if (ok)
                    plain &= ~((uint64_t)3 << (at - 1));
            }
        }
    }
    if (s->scan.escaped) /* the block's last byte escapes the next one's first: checked there */
        plain &= ~((uint64_t)1 << 63);
    return plain;
}

typedef struct {
    __m512i class_lo, class_hi, code_lo, code_hi, pair_table, c_ws, c_st, c_br, c_q, c_ss, backslash, first;
} constants;

/* Pass A over one block (data[0..readable) may be read past it): appends to the dense arrays. */
static inline void scan_block(const uint8_t *block, size_t readable, const constants *c, state *s, uint8_t *kinds,
                              size_t *nk, uint8_t *brackets, size_t *nb, uint8_t *tokens, size_t *nt)
{
    G_(masks_) m;
    uint64_t quote, in_string, tail, plain_stops;
    __m512i x = _mm512_loadu_si512(block);
    uint64_t high = _mm512_movepi8_mask(x);
    __m512i cls = _mm512_maskz_permutex2var_epi8(~high, c->class_lo, x, c->class_hi);
    plain_stops = _mm512_test_epi8_mask(cls, c->c_ss);
#ifdef DERIVED_PAIRS
    m.quote = _mm512_cmpeq_epi8_mask(x, c->c_q);
#else
    m.quote = _mm512_test_epi8_mask(cls, c->c_q);
#endif
    m.escape = _mm512_cmpeq_epi8_mask(x, c->backslash);
    (void)G_(utf8_avx512_)(block, &s->utf8_prev, &s->utf8_error);
    if ((m.escape | s->scan.escaped) != 0)
        plain_stops = escapes(block, readable, &m, s, &quote, plain_stops);
    else
        quote = m.quote;
    in_string = prefix_xor(quote) ^ s->scan.in_string;
    tail = in_string ^ quote; /* the strings' insides and closing quotes */
    s->scan.in_string = (uint64_t)0 - (in_string >> 63);
    s->bad |= plain_stops & tail & ~quote;
    {
        uint64_t ws = _mm512_test_epi8_mask(cls, c->c_ws), st = _mm512_test_epi8_mask(cls, c->c_st);
        uint64_t br = _mm512_test_epi8_mask(cls, c->c_br);
        uint64_t outside = ~(in_string | tail);
        uint64_t token = outside & ~ws & ~st;
        uint64_t token_first = token & ~((token << 1) | s->scalar);
        uint64_t positions = (st & outside) | (quote & in_string) | token_first;
        uint64_t bracket = br & outside;
        __m512i marked = _mm512_mask_blend_epi8(token_first, x, _mm512_or_si512(x, c->first));
        s->scalar = token >> 63;
        s->bad |= token & high;
        _mm512_storeu_si512(kinds + *nk, _mm512_maskz_compress_epi8(positions, cls));
        _mm512_storeu_si512(brackets + *nb, _mm512_maskz_compress_epi8(bracket, x));
        _mm512_storeu_si512(tokens + *nt, _mm512_maskz_compress_epi8(token, marked));
        *nk += (size_t)__builtin_popcountll(positions);
        *nb += (size_t)__builtin_popcountll(bracket);
        *nt += (size_t)__builtin_popcountll(token);
    }
}

bool bigrams_is_valid(const uint8_t *data, size_t len)
{
    static uint8_t stack[JSON_VALIDATOR_MAX_DEPTH + 2];
    static int ready;
    uint8_t kinds_[64 * BLOCKS + 128], *kinds = kinds_ + 64;     /* kinds[-1]: the kind before */
    uint8_t tokens_[64 * BLOCKS + 192], *tokens = tokens_ + 64;  /* tokens[-HISTORY..-1]: bytes before */
    uint8_t brackets[64 * BLOCKS + 64], after[64 * BLOCKS + 64], last[128];
    size_t blocks = (len + 63u) / 64u, chunk;
    constants c;
    state s;
#ifdef DERIVED_PAIRS
    uint8_t refine_table[64];
    __m512i pairs_ok_lo = _mm512_loadu_si512(pair_ok), pairs_ok_hi = _mm512_loadu_si512(pair_ok + 64);
    __m512i pairs_tag_lo = _mm512_loadu_si512(pair_tag), pairs_tag_hi = _mm512_loadu_si512(pair_tag + 64), refine;
    memset(refine_table, 0, sizeof refine_table);
    memcpy(refine_table, pair_refined, sizeof pair_refined);
    refine = _mm512_loadu_si512(refine_table);
#endif
#ifdef TOKEN_AUTOMATON
    uint8_t going_on = 1; /* the token state at a chunk's start: FIN, none going on */
#endif
    if (!ready) {
        init_tables();
        ready = 1;
    }
#ifdef DERIVED_PAIRS
    c.class_lo = _mm512_loadu_si512(pair_classes);
    c.class_hi = _mm512_loadu_si512(pair_classes + 64);
#else
    c.class_lo = _mm512_loadu_si512(classes);
    c.class_hi = _mm512_loadu_si512(classes + 64);
#endif
    c.code_lo = _mm512_loadu_si512(codes);
    c.code_hi = _mm512_loadu_si512(codes + 64);
#ifndef DERIVED_PAIRS
    c.pair_table = _mm512_loadu_si512(pairs);
#endif
    c.c_ws = _mm512_set1_epi8(C_WS);
    c.c_st = _mm512_set1_epi8(C_ST);
    c.c_br = _mm512_set1_epi8(C_BR);
#ifdef DERIVED_PAIRS
    c.c_q = _mm512_set1_epi8((char)PAIR_QUOTE);
#else
    c.c_q = _mm512_set1_epi8(C_Q);
#endif
    c.c_ss = _mm512_set1_epi8((char)C_SS);
    c.backslash = _mm512_set1_epi8('\\');
    c.first = _mm512_set1_epi8((char)FIRST);
    HIDE(c.class_lo); HIDE(c.class_hi); HIDE(c.code_lo); HIDE(c.code_hi);
#ifndef DERIVED_PAIRS
    HIDE(c.pair_table);
#endif
    HIDE(c.c_ws); HIDE(c.c_st); HIDE(c.c_br); HIDE(c.c_q); HIDE(c.c_ss); HIDE(c.backslash); HIDE(c.first);
    memset(&s, 0, sizeof s);
    s.utf8_prev = _mm512_setzero_si512();
    s.utf8_error = _mm512_setzero_si512();
#ifdef DERIVED_PAIRS
    s.top = 0; /* the context bits: 0, the start rule's machine */
    s.kind = s.refined = PAIR_START;
    stack[0] = 0;
#else
    s.top = 1;
    s.kind = K_START;
    stack[0] = 2;
#endif
    memset(tokens_, 0, 64);
    tokens[-1] = FIRST | '0'; /* as if a number came before the first token: no end to check there */
    if (len != 0) { /* the last block from a copy, spaces after the input's end */
        size_t at = 64u * (blocks - 1u);
        memset(last, ' ', sizeof last);
        memcpy(last, data + at, len - at);
    }
    for (chunk = 0; chunk < blocks; chunk += BLOCKS) {
        size_t count = blocks - chunk < BLOCKS ? blocks - chunk : BLOCKS, i, nk = 0, nb = 0, nt = 0;
        for (i = 0; i < count; i++) {
            size_t block = chunk + i;
            if (block + 1u == blocks)
                scan_block(last, len - 64u * block, &c, &s, kinds, &nk, brackets, &nb, tokens, &nt);
            else
                scan_block(data + 64u * block, len - 64u * block, &c, &s, kinds, &nk, brackets, &nb, tokens, &nt);
        }
        if (chunk + count == blocks)
            tokens[nt++] = FIRST | '0'; /* a sentinel token: the last token's end is checked before it */
#ifdef TOKEN_AUTOMATON
        s.bad |= check_tokens_by_automaton(tokens, nt, &going_on);
#else
        s.bad |= check_tokens(tokens, nt, &s, c.code_lo, c.code_hi);
#endif
        if (nt >= HISTORY) {
            memcpy(tokens - HISTORY, tokens + nt - HISTORY, HISTORY);
        } else {
            memmove(tokens - HISTORY, tokens - HISTORY + nt, HISTORY - nt);
            memcpy(tokens - nt, tokens, nt);
        }
        kinds[-1] = (uint8_t)s.kind;
#ifdef DERIVED_PAIRS
        check_brackets_derived(brackets, nb, after, stack, &s);
        check_pairs_derived(kinds, nk, after, &s, pairs_ok_lo, pairs_ok_hi, pairs_tag_lo, pairs_tag_hi, refine);
#else
        check_brackets(brackets, nb, after, stack, &s);
        check_pairs(kinds, nk, after, &s, c.pair_table);
#endif
    }
    if (_mm512_test_epi8_mask(s.utf8_error, s.utf8_error) != 0)
        return false;
    /* a character cut off by the input's end (the window test saw no byte after it) */
    if ((len >= 1 && data[len - 1] >= 0xC0) || (len >= 2 && data[len - 2] >= 0xE0) ||
        (len >= 3 && data[len - 3] >= 0xF0))
        return false;
#ifdef DERIVED_PAIRS
    return s.bad == 0 && s.scan.in_string == 0 && s.depth == 0 && pair_ends[s.refined];
#else
    return s.bad == 0 && s.scan.in_string == 0 && s.depth == 0 && ends[s.kind] && !(s.key_string & s.key_expected);
#endif
}
