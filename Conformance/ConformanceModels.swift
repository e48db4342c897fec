import StoreCore

/// The test models of the behaviour catalogue (`specs/behaviours.md`), defined once.
public enum ConformanceModels {
    /// Team {name, uniformColor, players →> Player (inverse team, Cascade)};
    /// Player {firstName, lastName, email, team → Team (inverse players, Nullify)}.
    public static func league() throws -> ObjectModel {
        try model {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("uniformColor", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("email", .string)
                Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
            }
        }
    }

    /// Organization {id, name, leader → Person (no inverse)}; Person {id, name, employees →> Person (no inverse)}.
    public static func orgChart() throws -> ObjectModel {
        try model {
            Entity("Organization") {
                Attribute("id", .integer16, optional: false, defaultValue: 0)
                Attribute("name", .string, optional: false, defaultValue: "")
                Relationship("leader", to: "Person")
            }
            Entity("Person") {
                Attribute("id", .integer16, optional: false, defaultValue: 0)
                Attribute("name", .string, optional: false, defaultValue: "")
                Relationship("employees", to: "Person", toMany: true)
            }
        }
    }

    /// The stress model: User, Post, Nickname, abstract RootTag ← Tag.
    public static func users() throws -> ObjectModel {
        try model {
            Entity("User") {
                Attribute("name", .string, optional: false, defaultValue: "")
                Attribute("age", .integer64, optional: false, defaultValue: 0)
                Attribute("admin", .boolean)
                Relationship("posts", to: "Post", inverse: "user", toMany: true, deleteRule: .cascade)
                Relationship("nicknames", to: "Nickname", inverse: "user", toMany: true, deleteRule: .cascade)
                Relationship("tags", to: "Tag", inverse: "users", toMany: true)
            }
            Entity("Post") {
                Attribute("title", .string, optional: false, defaultValue: "")
                Attribute("body", .string)
                Attribute("timestamp", .date)
                Relationship("user", to: "User", inverse: "posts")
            }
            Entity("Nickname") {
                Attribute("value", .string, optional: false, defaultValue: "")
                Relationship("user", to: "User", inverse: "nicknames")
            }
            Entity("RootTag", abstract: true) {
                Attribute("name", .string)
            }
            Entity("Tag", parent: "RootTag") {
                Relationship("users", to: "User", inverse: "tags", toMany: true)
            }
        }
    }

    /// Inheritance: abstract Shape ← Circle, Polygon; Vertex; Canvas; Transform.
    public static func shapes() throws -> ObjectModel {
        try model {
            Entity("Shape", abstract: true) {
                Attribute("color", .string)
                Relationship("canvases", to: "Canvas", inverse: "shapes", toMany: true)
            }
            Entity("Circle", parent: "Shape") {
                Attribute("radius", .float, defaultValue: .double(8.0))
                Attribute("x", .float)
                Attribute("y", .float)
            }
            Entity("Polygon", parent: "Shape") {
                Relationship("vertices", to: "Vertex", inverse: "polygon", toMany: true, minCount: 3, deleteRule: .cascade)
            }
            Entity("Vertex") {
                Attribute("index", .integer16)
                Attribute("x", .float)
                Attribute("y", .float)
                Relationship("polygon", to: "Polygon", inverse: "vertices")
            }
            Entity("Canvas") {
                Relationship("transform", to: "Transform", inverse: "canvas", deleteRule: .cascade)
                Relationship("shapes", to: "Shape", inverse: "canvases", toMany: true)
            }
            Entity("Transform") {
                Attribute("scale", .float)
                Relationship("canvas", to: "Canvas", inverse: "transform", optional: false, deleteRule: .deny)
            }
        }
    }

    /// One entity with an attribute of every type, required (`<type>`) and optional (`opt<Type>`).
    public static func allTypes() throws -> ObjectModel {
        try model {
            Entity("AllTypes") {
                for type in AttributeType.allCases {
                    Attribute(type.rawValue, type)
                    Attribute("opt" + type.rawValue.prefix(1).uppercased() + type.rawValue.dropFirst(), type)
                }
            }
        }
    }

    /// Accounts with a self-referencing many-to-many: transferTo ↔ transferFrom.
    public static func accounts() throws -> ObjectModel {
        try model {
            Entity("Account") {
                Attribute("name", .string)
                Relationship("transferTo", to: "Account", inverse: "transferFrom", toMany: true)
                Relationship("transferFrom", to: "Account", inverse: "transferTo", toMany: true)
            }
        }
    }

    /// Batch requests: Song {title, favorite (default NO), lastUsed, plays (≥ 0), album → Album,
    /// playlists ↔ Playlist}; Album {title, songs →> Song (Cascade)}; Playlist {name, songs ↔ Song}.
    public static func music() throws -> ObjectModel {
        try model {
            Entity("Song") {
                Attribute("title", .string)
                Attribute("favorite", .boolean, optional: false, defaultValue: false)
                Attribute("lastUsed", .date)
                Attribute("plays", .integer32, defaultValue: 0, minValue: 0)
                Relationship("album", to: "Album", inverse: "songs")
                Relationship("playlists", to: "Playlist", inverse: "songs", toMany: true)
            }
            Entity("Album") {
                Attribute("title", .string)
                Relationship("songs", to: "Song", inverse: "album", toMany: true, deleteRule: .cascade)
            }
            Entity("Playlist") {
                Attribute("name", .string)
                Relationship("songs", to: "Song", inverse: "playlists", toMany: true)
            }
        }
    }

    /// Two configurations: "Notes" (Note) and "Passwords" (System, Category, List).
    public static func notesAndPasswords() throws -> ObjectModel {
        try model(configurations: ["Notes": ["Note"], "Passwords": ["System", "Category", "List"]]) {
            Entity("Note") { Attribute("title", .string) }
            Entity("System") { Attribute("name", .string) }
            Entity("Category") { Attribute("name", .string) }
            Entity("List") { Attribute("name", .string) }
        }
    }

    /// Uniqueness constraints: Club {name, city, unique (name, city), members →> Contact};
    /// Contact {email (unique, across sub-entities), name, age, club → Club}; Member ← Contact
    /// {level}.
    public static func contacts() throws -> ObjectModel {
        try model {
            Entity("Club", uniquenessConstraints: [["name", "city"]]) {
                Attribute("name", .string)
                Attribute("city", .string)
                Relationship("members", to: "Contact", inverse: "club", toMany: true)
            }
            Entity("Contact", uniquenessConstraints: [["email"]]) {
                Attribute("email", .string)
                Attribute("name", .string)
                Attribute("age", .integer32)
                Relationship("club", to: "Club", inverse: "members")
            }
            Entity("Member", parent: "Contact") { Attribute("level", .integer16) }
        }
    }

    /// Derived attributes: Writer {name, searchName = canonical:(name), shoutedName =
    /// uppercase:(name), novelCount = novels.@count, novels →> Novel}; Novel {title,
    /// writerName = writer.name, savedAt = now(), writer → Writer}.
    public static func writers() throws -> ObjectModel {
        try model {
            Entity("Writer") {
                Attribute("name", .string)
                Attribute("searchName", .string, indexed: true, derivation: "canonical:(name)")
                Attribute("shoutedName", .string, derivation: "uppercase:(name)")
                Attribute("novelCount", .integer64, derivation: "novels.@count")
                Relationship("novels", to: "Novel", inverse: "writer", toMany: true)
            }
            Entity("Novel") {
                Attribute("title", .string)
                Attribute("writerName", .string, derivation: "writer.name")
                Attribute("savedAt", .date, derivation: "now()")
                Relationship("writer", to: "Writer", inverse: "novels")
            }
        }
    }

    private static func model(
        configurations: [String: [String]] = [:], @ModelBuilder _ entities: () -> [EntityDescription]
    ) throws -> ObjectModel {
        try ObjectModel(entities: entities(), configurations: configurations)
    }
}
