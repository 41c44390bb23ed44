// Sequelize 6 (its pg dialect, stock) as its users run it: models,
// sync({ alter: true }) twice, create, update, findOne, managed
// transactions, a 40001 conflict retried. argv: URL.
'use strict';

const { Sequelize, DataTypes } = require('sequelize');
const { step, check, expect, conflict, closeWithin } = require('./compat');

async function main() {
  const [url] = process.argv.slice(2);
  const options = { logging: false, pool: { max: 2 } };
  const sequelize = new Sequelize(url, options);
  const define = (s) => {
    const Author = s.define('SeqAuthor', {
      name: { type: DataTypes.STRING(80), allowNull: false, unique: true },
      born: DataTypes.DATEONLY,
    });
    const Book = s.define('SeqBook', {
      title: { type: DataTypes.STRING, allowNull: false },
      price: DataTypes.DECIMAL(8, 2),
      stock: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    });
    Book.belongsTo(Author);
    Author.hasMany(Book);
    return { Author, Book };
  };
  const { Author, Book } = define(sequelize);
  await step('authenticate', () => sequelize.authenticate());
  await step('sync({ alter: true })', () => sequelize.sync({ alter: true }));
  await step('sync({ alter: true }) again', () => sequelize.sync({ alter: true }));
  await step('create (timestamps, generated ids)', async () => {
    const ann = await Author.create({ name: 'ann', born: '1990-05-06' });
    expect(Number.isInteger(ann.id) && ann.createdAt instanceof Date, ann.toJSON());
    await Book.create({ title: 'one', price: '9.99', SeqAuthorId: ann.id });
    await Book.create({ title: 'two', SeqAuthorId: ann.id });
  });
  await step('findOne, include, update', async () => {
    const ann = await Author.findOne({ where: { name: 'ann' }, include: Book });
    expect(ann && ann.SeqBooks.length === 2, ann && ann.toJSON());
    const book = await Book.findOne({ where: { title: 'two' } });
    await book.update({ price: '1.25', stock: 3 });
    const again = await Book.findByPk(book.id);
    expect(again.price === '1.25' && again.stock === 3, again.toJSON());
  });
  await step('managed transactions (commit and rollback)', async () => {
    await sequelize.transaction(async (t) => {
      await Author.create({ name: 'bo' }, { transaction: t });
    });
    await sequelize.transaction(async (t) => {
      await Author.create({ name: 'gone' }, { transaction: t });
      throw new Error('roll back');
    }).catch((e) => { if (e.message !== 'roll back') throw e; });
    const names = (await Author.findAll({ order: [['name', 'ASC']] })).map((a) => a.name).join();
    expect(names === 'ann,bo', names);
  });
  await step('40001 conflict, retried', async () => {
    const sessions = [new Sequelize(url, options), new Sequelize(url, options)];
    const books = sessions.map((s) => define(s).Book);
    try {
      const codes = await conflict([0, 1], (i, fn) => sessions[i].transaction((t) => fn({ i, t })),
        async ({ i, t }) => (await books[i].findOne({ where: { title: 'one' }, transaction: t })).stock,
        ({ i, t }, n) => books[i].update({ stock: n }, { where: { title: 'one' }, transaction: t }));
      const one = await Book.findOne({ where: { title: 'one' } });
      expect(codes[0] === '40001', `SQLSTATEs ${codes}, want one 40001`);
      expect(one.stock === 2, `stock = ${one.stock} after the retry, want 2`);
    } finally {
      await closeWithin(Promise.all(sessions.map((s) => s.close())));
    }
  });
  check('SELECT id, name, born FROM "SeqAuthors" ORDER BY id');
  check('SELECT id, title, price, stock, "SeqAuthorId" FROM "SeqBooks" ORDER BY id');
  await closeWithin(sequelize.close());
}

// Exit once every step is reported: a client whose pool never closes
// (after a failed connection setup) must not hold the suite.
main().then(() => process.exit(0), (e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
