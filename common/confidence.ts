// Below this probability a token or word is one for the user to check. On the scribe pages, words the shipped
// model wrote with a mean token probability under 0.7 were right 18% of the time, against 80% at 0.9 and above
// (docs/decisions/0017; `npm run eval` measures it as scribe.right_when_unsure / right_when_sure).
export const CHECK_BELOW = 0.7;
