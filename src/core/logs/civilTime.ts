// A printed date and time as epoch milliseconds: in the bottom layer (src/engines/civilTime.ts),
// where the engines' grammars read their stamps; the parser's parts import it from here.
export * from '../../engines/civilTime';
