// A token the model gave a probability under this is one for the user to check, and so is every word holding
// one (a word's confidence is its least sure token's): the rest are sure. One bar for both, so that every word
// is either sure or to check. On the development scans, words with a token under 0.9 held 58% of the words
// read wrong on scribe pages, 50-61% on the forms and typescripts, while 6.7% of scribe words were flagged
// (docs/decisions/0027; `npm run eval` measures it as <source>.wrong_words_flagged and right_when_sure).
export const CHECK_BELOW = 0.9;
